// Binary PBM (P4) rendering, used by the tests to hand a symbol to an independent decoder.
import { Buffer } from 'node:buffer';

interface DarkModules {
  readonly size: number;
  isDark(x: number, y: number): boolean;
}

export interface PbmOptions {
  /** Pixels per module. */
  scale: number;
  /** Light modules around the symbol; the standard asks for at least 4. */
  quietZone?: number;
}

/** P4 image: rows of bits packed most significant first, 1 = black, each row padded to a byte. */
export function qrToPbm(code: DarkModules, { scale, quietZone = 4 }: PbmOptions): Buffer {
  if (!Number.isInteger(scale) || scale < 1 || scale > 64) throw new RangeError('PBM scale must be an integer from 1 to 64');
  if (!Number.isInteger(quietZone) || quietZone < 0 || quietZone > 64) throw new RangeError('PBM quiet zone must be an integer from 0 to 64');
  const modules = code.size + 2 * quietZone;
  const width = modules * scale;
  const rowBytes = (width + 7) >>> 3;
  const header = Buffer.from(`P4\n${width} ${width}\n`, 'ascii');
  const out = Buffer.alloc(header.length + rowBytes * width);
  header.copy(out);
  const row = new Uint8Array(rowBytes);
  for (let my = 0; my < modules; my++) {
    row.fill(0);
    for (let px = 0; px < width; px++) {
      if (code.isDark(Math.floor(px / scale) - quietZone, my - quietZone)) row[px >>> 3] = (row[px >>> 3] ?? 0) | (0x80 >>> (px & 7));
    }
    for (let s = 0; s < scale; s++) out.set(row, header.length + (my * scale + s) * rowBytes);
  }
  return out;
}
