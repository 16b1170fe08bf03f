import { crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';

// A streaming ZIP writer (APPNOTE 6.3.10): each entry is deflated on its own as it arrives and
// written at once, followed by a data descriptor (bit 3), so no entry waits for the archive.
// Only the central directory is held until the end: 46 bytes plus the name (plus 12 for a
// ZIP64 offset) per entry. ZIP64 records are written only when needed: more than 65,535
// entries, or a central directory or entry starting past 4 GiB.

const deflate = promisify(deflateRaw);
/** Below this an entry is deflated in line: a trip to the thread pool costs more than the work. */
const INLINE_DEFLATE = 64 * 1024;

export interface ZipEntry {
  /** The path inside the archive, UTF-8 (flag bit 11). */
  name: string;
  data: Buffer | string;
  modified: Date;
}

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const FLAGS = 0x0008 | 0x0800; // data descriptor, UTF-8 names
const DEFLATE = 8;

/**
 * The central directory, copied into one buffer of its own: small Buffers are slices of
 * Node's shared 8 KiB pool, and keeping 100,000 of them would keep their whole slabs alive.
 */
class Directory {
  private buf = Buffer.allocUnsafeSlow(64 * 1024);
  length = 0;

  append(...parts: Buffer[]): void {
    const size = parts.reduce((n, p) => n + p.length, 0);
    if (this.length + size > this.buf.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.length + size));
      this.buf.copy(grown, 0, 0, this.length);
      this.buf = grown;
    }
    for (const p of parts) this.length += p.copy(this.buf, this.length);
  }

  get bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/** MS-DOS date and time of the local clock, as unzip shows them; 2-second precision. */
function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, Math.min(2107, d.getFullYear()));
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/** The archive's bytes, chunk by chunk, for entries read one at a time from `entries`. */
export async function* zipStream(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): AsyncGenerator<Buffer> {
  const central = new Directory();
  let offset = 0;
  let count = 0;
  for await (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    if (name.length === 0 || name.length > MAX16) throw new RangeError('A ZIP entry name must have 1 to 65,535 bytes');
    const raw = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data;
    if (raw.length >= MAX32) throw new RangeError('An entry of 4 GiB or more is not supported');
    const compressed = raw.length < INLINE_DEFLATE ? deflateRawSync(raw) : await deflate(raw);
    const crc = crc32(raw);
    const { time, date } = dosDateTime(entry.modified);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(FLAGS, 6);
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    // crc and sizes are 0 here: they follow in the data descriptor.
    local.writeUInt16LE(name.length, 26);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeUInt32LE(compressed.length, 8);
    descriptor.writeUInt32LE(raw.length, 12);

    const zip64Offset = offset >= MAX32;
    const extra = zip64Offset ? Buffer.alloc(12) : Buffer.alloc(0);
    if (zip64Offset) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(8, 2);
      extra.writeBigUInt64LE(BigInt(offset), 4);
    }
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE((3 << 8) | (zip64Offset ? 45 : 20), 4); // made by: Unix
    record.writeUInt16LE(zip64Offset ? 45 : 20, 6);
    record.writeUInt16LE(FLAGS, 8);
    record.writeUInt16LE(DEFLATE, 10);
    record.writeUInt16LE(time, 12);
    record.writeUInt16LE(date, 14);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(compressed.length, 20);
    record.writeUInt32LE(raw.length, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt16LE(extra.length, 30);
    record.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    record.writeUInt32LE(zip64Offset ? MAX32 : offset, 42);
    central.append(record, name, extra);

    const chunk = Buffer.concat([local, name, compressed, descriptor]);
    offset += chunk.length;
    count += 1;
    yield chunk;
  }

  const directory = central.bytes;
  const directoryOffset = offset;
  yield directory;
  const needs64 = count > MAX16 - 1 || directoryOffset >= MAX32 || directory.length >= MAX32;
  const tail: Buffer[] = [];
  if (needs64) {
    const end64 = Buffer.alloc(56);
    end64.writeUInt32LE(0x06064b50, 0);
    end64.writeBigUInt64LE(44n, 4); // size of the rest of this record
    end64.writeUInt16LE((3 << 8) | 45, 12);
    end64.writeUInt16LE(45, 14);
    end64.writeBigUInt64LE(BigInt(count), 24);
    end64.writeBigUInt64LE(BigInt(count), 32);
    end64.writeBigUInt64LE(BigInt(directory.length), 40);
    end64.writeBigUInt64LE(BigInt(directoryOffset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(directoryOffset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(end64, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(needs64 ? MAX16 : count, 8);
  end.writeUInt16LE(needs64 ? MAX16 : count, 10);
  end.writeUInt32LE(needs64 ? MAX32 : directory.length, 12);
  end.writeUInt32LE(needs64 ? MAX32 : directoryOffset, 16);
  tail.push(end);
  yield Buffer.concat(tail);
}
