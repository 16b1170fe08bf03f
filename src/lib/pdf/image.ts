// Raster images for the PDF writer, read from the two formats a logo comes in. A JPEG is embedded
// as it is (DCTDecode: PDF readers decode it). A PNG is decoded here with node:zlib (its
// scanlines unfiltered, palettes and bit depths expanded to 8-bit gray or RGB) and written back
// Flate-compressed, its alpha channel, if any, as a soft mask. Everything a file declares is
// checked and bounded before any work is sized by it, so a hostile file fails with an
// ImageError instead of costing memory or time.
import { crc32, deflateSync, inflateSync } from 'node:zlib';

/** A reason a file cannot be used as an image, for the user. */
export class ImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageError';
  }
}

export interface PdfImage {
  readonly width: number;
  readonly height: number;
  readonly colorSpace: 'DeviceGray' | 'DeviceRGB';
  readonly filter: 'DCTDecode' | 'FlateDecode';
  /** The image stream, already encoded with `filter`. */
  readonly data: Buffer;
  /** A Flate-compressed 8-bit alpha channel, when the image has transparency. */
  readonly alpha: Buffer | null;
}

/** Largest side, and largest pixel count, of an image this writer takes. */
export const MAX_IMAGE_SIDE = 4096;
export const MAX_IMAGE_PIXELS = 4_000_000;

export type ImageType = 'png' | 'jpeg';

export function sniffImage(file: Buffer): ImageType | null {
  if (file.length >= 8 && file.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (file.length >= 3 && file[0] === 0xff && file[1] === 0xd8 && file[2] === 0xff) return 'jpeg';
  return null;
}

/** The image in `file` (PNG or JPEG), ready to embed. */
export function readImage(file: Buffer): PdfImage {
  const type = sniffImage(file);
  if (type === 'png') return readPng(file);
  if (type === 'jpeg') return readJpeg(file);
  throw new ImageError('the file is neither a PNG nor a JPEG image');
}

function checkSize(width: number, height: number): void {
  if (width < 1 || height < 1) throw new ImageError('the image has no pixels');
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS) {
    throw new ImageError(`the image is ${width}×${height} pixels; at most ${MAX_IMAGE_SIDE} on a side and ${MAX_IMAGE_PIXELS.toLocaleString('en')} pixels`);
  }
}

// ---- JPEG ----------------------------------------------------------------------------------

// Baseline, extended sequential and progressive Huffman JPEGs (SOF0, SOF1, SOF2) are what PDF's
// DCTDecode reads; lossless, hierarchical and arithmetic-coded ones it does not.
const SUPPORTED_SOF = new Set([0xc0, 0xc1, 0xc2]);
const OTHER_SOF = new Set([0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function readJpeg(file: Buffer): PdfImage {
  let at = 2;
  let frame: { width: number; height: number; components: number } | null = null;
  while (at + 4 <= file.length) {
    if (file[at] !== 0xff) throw new ImageError('the JPEG file is damaged (a marker was expected)');
    const marker = file[at + 1] as number;
    if (marker === 0xff) { at += 1; continue; }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { at += 2; continue; }
    if (marker === 0xd9) break;
    const length = file.readUInt16BE(at + 2);
    if (length < 2 || at + 2 + length > file.length) throw new ImageError('the JPEG file is truncated');
    if (SUPPORTED_SOF.has(marker)) {
      if (length < 8) throw new ImageError('the JPEG file is damaged (short frame header)');
      const precision = file[at + 4];
      const height = file.readUInt16BE(at + 5);
      const width = file.readUInt16BE(at + 7);
      const components = file[at + 9] as number;
      if (precision !== 8) throw new ImageError(`${precision}-bit JPEG is not supported; save it with 8 bits per channel`);
      if (height === 0) throw new ImageError('the JPEG declares its height later (DNL): not supported');
      if (components !== 1 && components !== 3) throw new ImageError(components === 4 ? 'CMYK JPEG is not supported; save it as RGB' : `a JPEG of ${components} components is not supported`);
      checkSize(width, height);
      frame = { width, height, components };
    } else if (OTHER_SOF.has(marker)) {
      throw new ImageError('lossless, hierarchical or arithmetic-coded JPEG is not supported; save it as a baseline or progressive JPEG');
    } else if (marker === 0xda) {
      if (frame === null) throw new ImageError('the JPEG file has image data before its frame header');
      return { width: frame.width, height: frame.height, colorSpace: frame.components === 1 ? 'DeviceGray' : 'DeviceRGB', filter: 'DCTDecode', data: file, alpha: null };
    }
    at += 2 + length;
  }
  throw new ImageError('the JPEG file has no image data');
}

// ---- PNG -----------------------------------------------------------------------------------

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Readonly<Record<number, readonly number[]>> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
const MAX_CHUNKS = 10_000;

interface Header {
  width: number;
  height: number;
  depth: number;
  colorType: number;
}

function readPng(file: Buffer): PdfImage {
  let at = 8;
  let header: Header | null = null;
  let palette: Buffer | null = null;
  let transparency: Buffer | null = null;
  const idat: Buffer[] = [];
  let chunks = 0;
  for (;;) {
    if (at + 12 > file.length) throw new ImageError('the PNG file is truncated');
    if (++chunks > MAX_CHUNKS) throw new ImageError('the PNG file has too many chunks');
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    if (length > file.length - at - 12) throw new ImageError('the PNG file is truncated');
    const data = file.subarray(at + 8, at + 8 + length);
    if (crc32(file.subarray(at + 4, at + 8 + length)) !== file.readUInt32BE(at + 8 + length)) throw new ImageError(`the PNG file is damaged (bad checksum in ${type.replace(/[^A-Za-z]/g, '?')})`);
    at += 12 + length;
    if (header === null && type !== 'IHDR') throw new ImageError('the PNG file does not start with its header');
    if (type === 'IHDR') {
      if (header !== null || length !== 13) throw new ImageError('the PNG file has a bad header');
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), depth: data[8] as number, colorType: data[9] as number };
      const [compression, filter, interlace] = [data[10], data[11], data[12]];
      if (!(header.colorType in CHANNELS) || !(DEPTHS[header.colorType] ?? []).includes(header.depth) || compression !== 0 || filter !== 0) {
        throw new ImageError('the PNG file uses an unknown colour type, bit depth or compression');
      }
      if (interlace !== 0) throw new ImageError('interlaced (Adam7) PNG is not supported; save it without interlacing');
      checkSize(header.width, header.height);
    } else if (type === 'PLTE') {
      if (length % 3 !== 0 || length === 0 || length > 768) throw new ImageError('the PNG file has a bad palette');
      palette = data;
    } else if (type === 'tRNS') {
      transparency = data;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    } else if ((type.charCodeAt(0) & 0x20) === 0) {
      throw new ImageError(`the PNG file needs a feature this reader lacks (chunk ${type.replace(/[^A-Za-z]/g, '?')})`);
    }
  }
  if (header === null || idat.length === 0) throw new ImageError('the PNG file has no image data');
  if (header.colorType === 3 && palette === null) throw new ImageError('the PNG file has no palette for its colours');
  return decodePng(header, Buffer.concat(idat), palette, transparency);
}

function decodePng(h: Header, compressed: Buffer, palette: Buffer | null, transparency: Buffer | null): PdfImage {
  const channels = CHANNELS[h.colorType] as number;
  const bitsPerPixel = channels * h.depth;
  const rowBytes = Math.ceil((h.width * bitsPerPixel) / 8);
  const bpp = Math.max(1, bitsPerPixel / 8);
  const expected = (rowBytes + 1) * h.height;
  let raw: Buffer;
  try {
    raw = inflateSync(compressed, { maxOutputLength: expected + 1 });
  } catch {
    throw new ImageError('the PNG image data cannot be decompressed');
  }
  if (raw.length !== expected) throw new ImageError('the PNG image data has the wrong size');

  // Unfilter in place, row by row (PNG spec, section 9).
  const rows = Buffer.alloc(rowBytes * h.height);
  for (let y = 0; y < h.height; y++) {
    const filter = raw[y * (rowBytes + 1)] as number;
    const src = y * (rowBytes + 1) + 1;
    const out = y * rowBytes;
    for (let i = 0; i < rowBytes; i++) {
      const x = raw[src + i] as number;
      const a = i >= bpp ? (rows[out + i - bpp] as number) : 0;
      const b = y > 0 ? (rows[out - rowBytes + i] as number) : 0;
      const c = i >= bpp && y > 0 ? (rows[out - rowBytes + i - bpp] as number) : 0;
      let v: number;
      switch (filter) {
        case 0: v = x; break;
        case 1: v = x + a; break;
        case 2: v = x + b; break;
        case 3: v = x + ((a + b) >> 1); break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: throw new ImageError('the PNG image data has an unknown row filter');
      }
      rows[out + i] = v & 0xff;
    }
  }

  // Samples as 8-bit values: 16-bit keeps its high byte, 1/2/4-bit are unpacked.
  const sample = (y: number, index: number): number => {
    const row = y * rowBytes;
    if (h.depth === 8) return rows[row + index] as number;
    if (h.depth === 16) return rows[row + 2 * index] as number;
    const bit = index * h.depth;
    return ((rows[row + (bit >> 3)] as number) >> (8 - h.depth - (bit & 7))) & ((1 << h.depth) - 1);
  };
  const gray = h.colorType === 0 || h.colorType === 4;
  const colour = Buffer.alloc(h.width * h.height * (gray ? 1 : 3));
  const alpha = Buffer.alloc(h.width * h.height, 255);
  let translucent = false;
  const scale = h.depth < 8 && h.colorType === 0 ? 255 / ((1 << h.depth) - 1) : 1;
  const entries = palette === null ? 0 : palette.length / 3;
  for (let y = 0; y < h.height; y++) {
    for (let x = 0; x < h.width; x++) {
      const p = y * h.width + x;
      const s = x * channels;
      if (h.colorType === 3) {
        const index = sample(y, s);
        if (index >= entries) throw new ImageError('the PNG image uses a colour its palette lacks');
        palette?.copy(colour, p * 3, index * 3, index * 3 + 3);
        if (transparency !== null && index < transparency.length) alpha[p] = transparency[index] as number;
      } else if (gray) {
        colour[p] = Math.round(sample(y, s) * scale);
        if (h.colorType === 4) alpha[p] = sample(y, s + 1);
      } else {
        colour[p * 3] = sample(y, s);
        colour[p * 3 + 1] = sample(y, s + 1);
        colour[p * 3 + 2] = sample(y, s + 2);
        if (h.colorType === 6) alpha[p] = sample(y, s + 3);
      }
      if (alpha[p] !== 255) translucent = true;
    }
  }
  return {
    width: h.width,
    height: h.height,
    colorSpace: gray ? 'DeviceGray' : 'DeviceRGB',
    filter: 'FlateDecode',
    data: deflateSync(colour),
    alpha: translucent ? deflateSync(alpha) : null,
  };
}
