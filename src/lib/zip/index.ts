import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateRaw, deflateRawSync } from 'node:zlib';

// A streaming ZIP writer (APPNOTE 6.3.10): each entry is deflated on its own as it arrives and
// written at once, followed by a data descriptor (bit 3), so no entry waits for the archive.
// Only the central directory must wait for the end: 46 bytes plus the name (plus 12 for a
// ZIP64 offset) per entry, about 8 MB for 100,000 documents. It is held in memory up to a
// bound and spilled beyond it to a temporary file, so memory stays constant whatever the
// count. ZIP64 records are written only when needed: more than 65,535 entries, or a central
// directory or entry starting past 4 GiB.

const deflate = promisify(deflateRaw);
/** Below this an entry is deflated in line: a trip to the thread pool costs more than the work. */
const INLINE_DEFLATE = 64 * 1024;
/** The central directory held in memory before the rest goes to a temporary file (about 3,000 entries). */
export const DIRECTORY_MEMORY = 256 * 1024;
/** The spilled directory is streamed back in reads of this size. */
const READ_BACK = 64 * 1024;

export interface ZipEntry {
  /** The path inside the archive, UTF-8 (flag bit 11). */
  name: string;
  data: Buffer | string;
  modified: Date;
}

export interface DirectoryOptions {
  /** Bytes of central directory held in memory; beyond them it goes to a temporary file. */
  memoryLimit?: number;
  /** Where that file is made; the system's temporary directory by default. */
  tmpDir?: string;
}

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const FLAGS = 0x0008 | 0x0800; // data descriptor, UTF-8 names
const DEFLATE = 8;

/**
 * A file nobody else can reach: made in a directory of its own, which is removed as soon as
 * the file is open (Linux keeps an unlinked file until its last handle closes), so nothing
 * is left behind even if the process dies. `dir` is removed again on close where the early
 * removal failed.
 */
async function openAnonymous(parent: string): Promise<{ file: FileHandle; dir: string }> {
  const dir = await mkdtemp(join(parent, 'ecf-zip-'));
  try {
    const file = await open(join(dir, 'central-directory'), 'w+', 0o600);
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    return { file, dir };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The central directory: the first bytes in a temporary file once there are more than
 * `memoryLimit`, the last ones in one buffer of at most `memoryLimit` bytes. One buffer of its
 * own because small Buffers are slices of Node's shared 8 KiB pool, and keeping thousands of
 * them would keep their whole slabs alive. `close()` must follow, also when the archive is
 * abandoned: it closes (and so frees) the file.
 */
export class CentralDirectory {
  private readonly limit: number;
  private readonly tmpDir: string;
  private buf: Buffer;
  private used = 0;
  private spill: { file: FileHandle; dir: string } | undefined;
  private spilled = 0;
  /** The largest buffer held at once, never above `memoryLimit`. */
  peakMemory: number;

  constructor(options: DirectoryOptions = {}) {
    this.limit = options.memoryLimit ?? DIRECTORY_MEMORY;
    if (!Number.isInteger(this.limit) || this.limit < 1) throw new RangeError('memoryLimit must be a positive integer');
    this.tmpDir = options.tmpDir ?? tmpdir();
    this.buf = Buffer.allocUnsafeSlow(Math.min(this.limit, 64 * 1024));
    this.peakMemory = this.buf.length;
  }

  /** Bytes appended so far, in the file and in memory. */
  get length(): number {
    return this.spilled + this.used;
  }

  /** Bytes written to the temporary file so far. */
  get spilledBytes(): number {
    return this.spilled;
  }

  async append(...parts: Buffer[]): Promise<void> {
    const size = parts.reduce((n, p) => n + p.length, 0);
    if (this.used + size > this.buf.length) {
      if (this.used + size <= this.limit) {
        const grown = Buffer.allocUnsafeSlow(Math.min(this.limit, Math.max(this.buf.length * 2, this.used + size)));
        this.buf.copy(grown, 0, 0, this.used);
        this.buf = grown;
        this.peakMemory = Math.max(this.peakMemory, grown.length);
      } else {
        await this.write(this.buf.subarray(0, this.used));
        this.used = 0;
        // A record longer than the whole buffer (a name near 64 KiB under a small limit).
        if (size > this.buf.length) {
          for (const p of parts) await this.write(p);
          return;
        }
      }
    }
    for (const p of parts) this.used += p.copy(this.buf, this.used);
  }

  private async write(bytes: Buffer): Promise<void> {
    this.spill ??= await openAnonymous(this.tmpDir);
    for (let done = 0; done < bytes.length;) {
      const { bytesWritten } = await this.spill.file.write(bytes, done, bytes.length - done, this.spilled);
      done += bytesWritten;
      this.spilled += bytesWritten;
    }
  }

  /** The directory's bytes in order: the file's, read back in fresh buffers, then memory's. */
  async *chunks(): AsyncGenerator<Buffer> {
    const file = this.spill?.file;
    for (let at = 0; file !== undefined && at < this.spilled;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_BACK, this.spilled - at));
      let filled = 0;
      while (filled < chunk.length) {
        const { bytesRead } = await file.read(chunk, filled, chunk.length - filled, at + filled);
        if (bytesRead === 0) throw new Error('the spilled central directory ended early');
        filled += bytesRead;
      }
      at += filled;
      yield chunk;
    }
    if (this.used > 0) yield this.buf.subarray(0, this.used);
  }

  async close(): Promise<void> {
    const spill = this.spill;
    this.spill = undefined;
    if (spill === undefined) return;
    try {
      await spill.file.close();
    } finally {
      await rm(spill.dir, { recursive: true, force: true });
    }
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

/**
 * The archive's bytes, chunk by chunk, for entries read one at a time from `entries`. Ending
 * the generator early (return() or throw(), as a stream destroyed by a client that left
 * does) stops reading `entries` and closes the directory's temporary file.
 */
export async function* zipStream(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>, options: DirectoryOptions = {}): AsyncGenerator<Buffer> {
  const central = new CentralDirectory(options);
  try {
    yield* archive(entries, central);
  } finally {
    await central.close();
  }
}

async function* archive(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>, central: CentralDirectory): AsyncGenerator<Buffer> {
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
    await central.append(record, name, extra);

    const chunk = Buffer.concat([local, name, compressed, descriptor]);
    offset += chunk.length;
    count += 1;
    yield chunk;
  }

  const directoryOffset = offset;
  const directoryLength = central.length;
  yield* central.chunks();
  const needs64 = count > MAX16 - 1 || directoryOffset >= MAX32 || directoryLength >= MAX32;
  const tail: Buffer[] = [];
  if (needs64) {
    const end64 = Buffer.alloc(56);
    end64.writeUInt32LE(0x06064b50, 0);
    end64.writeBigUInt64LE(44n, 4); // size of the rest of this record
    end64.writeUInt16LE((3 << 8) | 45, 12);
    end64.writeUInt16LE(45, 14);
    end64.writeBigUInt64LE(BigInt(count), 24);
    end64.writeBigUInt64LE(BigInt(count), 32);
    end64.writeBigUInt64LE(BigInt(directoryLength), 40);
    end64.writeBigUInt64LE(BigInt(directoryOffset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(directoryOffset + directoryLength), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(end64, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(needs64 ? MAX16 : count, 8);
  end.writeUInt16LE(needs64 ? MAX16 : count, 10);
  end.writeUInt32LE(needs64 ? MAX32 : directoryLength, 12);
  end.writeUInt32LE(needs64 ? MAX32 : directoryOffset, 16);
  tail.push(end);
  yield Buffer.concat(tail);
}
