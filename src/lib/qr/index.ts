// QR Code encoder (ISO/IEC 18004, Model 2), byte mode only, for the DGII timbre URL printed on
// invoices. Strings are encoded as UTF-8 (flagged with an ECI when not plain ASCII, see
// codewords.ts); bytes are encoded as they are.
import { Buffer } from 'node:buffer';
import { dataCodewords, ECI_HEADER_BITS, interleave } from './codewords.ts';
import { applyMask, MASK_COUNT, penalty } from './mask.ts';
import { drawFormat, formatBits, placeCodewords, template } from './matrix.ts';
import { byteCapacity, isQrEcc, MAX_VERSION, MIN_VERSION, type QrEcc } from './tables.ts';

export type { QrEcc } from './tables.ts';
export { qrToPbm } from './pbm.ts';
export { qrToSvg } from './svg.ts';

export interface QrCode {
  readonly version: number;
  /** Modules per side, without the quiet zone. */
  readonly size: number;
  readonly ecc: QrEcc;
  /** The data mask chosen (0–7). */
  readonly mask: number;
  /** True for a dark module; anything outside the symbol is the light quiet zone. */
  isDark(x: number, y: number): boolean;
}

export interface QrOptions {
  /** Error-correction level; 'M' (about 15 % recoverable) when absent. */
  ecc?: QrEcc;
  /** Smallest version to use, 1–40, e.g. to keep the module size steady across invoices. */
  minVersion?: number;
  /** Forces a data mask (0–7) instead of the lowest-penalty one; for tests and diagnostics. */
  mask?: number;
}

/**
 * Encodes data in the smallest version (at least `minVersion`) that holds it. Throws a RangeError
 * for data longer than version 40 holds at the level, and for invalid options.
 */
export function encodeQr(data: string | Uint8Array, options: QrOptions = {}): QrCode {
  const ecc = options.ecc ?? 'M';
  if (!isQrEcc(ecc)) throw new RangeError(`QR error-correction level must be L, M, Q or H, not ${String(ecc)}`);
  const minVersion = options.minVersion ?? MIN_VERSION;
  if (!Number.isInteger(minVersion) || minVersion < MIN_VERSION || minVersion > MAX_VERSION) {
    throw new RangeError(`QR minVersion must be an integer from ${MIN_VERSION} to ${MAX_VERSION}`);
  }
  const forcedMask = options.mask;
  if (forcedMask !== undefined && (!Number.isInteger(forcedMask) || forcedMask < 0 || forcedMask >= MASK_COUNT)) {
    throw new RangeError(`QR mask must be an integer from 0 to ${MASK_COUNT - 1}`);
  }
  if (typeof data !== 'string' && !(data instanceof Uint8Array)) throw new TypeError('QR data must be a string or a Uint8Array');
  // A string's UTF-8 form is at least as long as the string: refuse a huge one before encoding it.
  if (data.length > byteCapacity(MAX_VERSION, 'L')) throw tooLong(`at least ${data.length}`, ecc, 0);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const utf8Eci = typeof data === 'string' && bytes.some((b) => b >= 0x80);
  const headerBits = utf8Eci ? ECI_HEADER_BITS : 0;

  let version = minVersion;
  while (byteCapacity(version, ecc, headerBits) < bytes.length) {
    if (version === MAX_VERSION) throw tooLong(String(bytes.length), ecc, headerBits);
    version++;
  }

  const tpl = template(version);
  const { size, reserved } = tpl;
  const unmasked = tpl.modules.slice();
  placeCodewords(unmasked, tpl, interleave(dataCodewords(bytes, version, ecc, utf8Eci), version, ecc));

  let best = new Uint8Array(unmasked.length);
  let bestMask = -1;
  let bestPenalty = Infinity;
  let work = new Uint8Array(unmasked.length);
  for (let mask = 0; mask < MASK_COUNT; mask++) {
    if (forcedMask !== undefined && mask !== forcedMask) continue;
    applyMask(work, unmasked, reserved, size, mask);
    drawFormat(work, tpl, formatBits(ecc, mask));
    const score = forcedMask === undefined ? penalty(work, size) : 0;
    if (score < bestPenalty) {
      [best, work] = [work, best];
      bestMask = mask;
      bestPenalty = score;
    }
  }

  const modules = best;
  return {
    version,
    size,
    ecc,
    mask: bestMask,
    isDark(x: number, y: number): boolean {
      return x >= 0 && x < size && y >= 0 && y < size && modules[y * size + x] === 1;
    },
  };
}

function tooLong(length: string, ecc: QrEcc, headerBits: number): RangeError {
  return new RangeError(`QR data is ${length} bytes; the most a QR code holds at error-correction level ${ecc} is ${byteCapacity(MAX_VERSION, ecc, headerBits)} bytes`);
}
