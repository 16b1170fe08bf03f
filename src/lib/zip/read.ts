import { crc32, inflateRawSync } from 'node:zlib';

// A small ZIP reader (APPNOTE 6.3.10) for archives a person uploads: an .xlsx workbook is one.
// Everything is bounded before it is believed: the archive's size, the number of entries, each
// entry's declared size and the sum of what is read (zip bombs: an entry that claims more is
// refused unread, one that claims less is cut off where its claim ends, since inflation stops one
// byte past the declared size, and entries sharing their data still count each time they are
// read); the result must match the declared size and its CRC-32. Only
// stored and deflated entries, no encryption, no ZIP64, no multi-disk archives.

export interface ZipLimits {
  /** The archive itself. */
  maxArchiveBytes: number;
  maxEntries: number;
  /** One entry, uncompressed. */
  maxEntryBytes: number;
  /** Every entry read, uncompressed. */
  maxTotalBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxArchiveBytes: 10 * 1024 * 1024,
  maxEntries: 500,
  maxEntryBytes: 20 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
};

export class ZipError extends Error {
  override name = 'ZipError';
}

interface EntryRecord {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export class ZipReader {
  private readonly data: Buffer;
  private readonly limits: ZipLimits;
  private readonly entries = new Map<string, EntryRecord>();
  private readBytes = 0;

  constructor(data: Buffer, limits: Partial<ZipLimits> = {}) {
    this.limits = { ...DEFAULT_ZIP_LIMITS, ...limits };
    if (data.length > this.limits.maxArchiveBytes) throw new ZipError(`the archive is larger than ${this.limits.maxArchiveBytes} bytes`);
    if (data.length < 22) throw new ZipError('not a ZIP archive (too short)');
    this.data = data;
    this.readDirectory();
  }

  /** Entry names, in the central directory's order. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The entry's bytes; null when the archive has no such entry. */
  read(name: string): Buffer | null {
    const e = this.entries.get(name);
    if (e === undefined) return null;
    const { data, limits } = this;
    if (e.size > limits.maxEntryBytes) throw new ZipError(`${name} is larger than ${limits.maxEntryBytes} bytes`);
    if (this.readBytes + e.size > limits.maxTotalBytes) throw new ZipError(`the archive holds more than ${limits.maxTotalBytes} bytes`);
    if (e.localOffset + 30 > data.length || data.readUInt32LE(e.localOffset) !== LOCAL) throw new ZipError(`${name}: no local header where the directory says`);
    const start = e.localOffset + 30 + data.readUInt16LE(e.localOffset + 26) + data.readUInt16LE(e.localOffset + 28);
    if (start + e.compressedSize > data.length) throw new ZipError(`${name} runs past the end of the archive`);
    const raw = data.subarray(start, start + e.compressedSize);
    let out: Buffer;
    if (e.method === 0) {
      out = Buffer.from(raw);
    } else {
      try {
        // One byte past the declared size shows an entry that lies about its size.
        out = inflateRawSync(raw, { maxOutputLength: Math.max(1, e.size + 1) });
      } catch (err) {
        throw new ZipError(`${name} cannot be inflated (${(err as Error).message}); it may be damaged or larger than it says`);
      }
    }
    if (out.length !== e.size) throw new ZipError(`${name} is not the size the directory says`);
    if (crc32(out) !== e.crc) throw new ZipError(`${name} is damaged (CRC-32 mismatch)`);
    this.readBytes += out.length;
    return out;
  }

  private readDirectory(): void {
    const { data, limits } = this;
    // The end record is within the last 22 + 65,535 bytes (its comment is at most that long).
    let eocd = -1;
    for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
      if (data.readUInt32LE(i) === EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new ZipError('not a ZIP archive (no end of central directory)');
    if (data.readUInt16LE(eocd + 4) !== 0 || data.readUInt16LE(eocd + 6) !== 0) throw new ZipError('multi-disk archives are not supported');
    const count = data.readUInt16LE(eocd + 10);
    const size = data.readUInt32LE(eocd + 12);
    const offset = data.readUInt32LE(eocd + 16);
    if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) throw new ZipError('ZIP64 archives are not supported');
    if (count > limits.maxEntries) throw new ZipError(`the archive has more than ${limits.maxEntries} entries`);
    if (offset + size > eocd) throw new ZipError('the central directory runs past its end record');
    let p = offset;
    for (let n = 0; n < count; n++) {
      if (p + 46 > eocd || data.readUInt32LE(p) !== CENTRAL) throw new ZipError('the central directory is damaged');
      const flags = data.readUInt16LE(p + 8);
      const method = data.readUInt16LE(p + 10);
      const nameLength = data.readUInt16LE(p + 28);
      const extraLength = data.readUInt16LE(p + 30);
      const commentLength = data.readUInt16LE(p + 32);
      const record: EntryRecord = {
        name: data.toString('utf8', p + 46, p + 46 + nameLength),
        method,
        crc: data.readUInt32LE(p + 16),
        compressedSize: data.readUInt32LE(p + 20),
        size: data.readUInt32LE(p + 24),
        localOffset: data.readUInt32LE(p + 42),
      };
      if ((flags & 0x0001) !== 0) throw new ZipError(`${record.name} is encrypted`);
      if (method !== 0 && method !== 8) throw new ZipError(`${record.name} uses compression method ${method}; only stored and deflate are read`);
      if (record.size === 0xffffffff || record.compressedSize === 0xffffffff || record.localOffset === 0xffffffff) throw new ZipError('ZIP64 entries are not supported');
      if (this.entries.has(record.name)) throw new ZipError(`${record.name} appears twice`);
      this.entries.set(record.name, record);
      p += 46 + nameLength + extraLength + commentLength;
    }
  }
}
