// Turns the payload into the final codeword sequence of a symbol: one byte-mode segment, the
// terminator and padding (§7.4), then the blocks' data and EC codewords interleaved (§7.6).
//
// Byte mode means ISO-8859-1 unless an ECI says otherwise (§7.4.2), and readers that guess get
// UTF-8 wrong (zbar reads "ó" as CJK), so UTF-8 text with non-ASCII characters is preceded by the
// ECI designator for UTF-8 (000026). ASCII, the timbre URL included, is the same in both and goes
// without it, which keeps it readable by readers that do not know ECI.
import { ecCodewords } from './reed-solomon.ts';
import { blockLayout, byteCountBits, type QrEcc } from './tables.ts';

const MODE_BYTE = 0b0100;
const MODE_ECI = 0b0111;
const ECI_UTF8 = 26;
/** Mode indicator and one-byte ECI assignment number. */
export const ECI_HEADER_BITS = 12;
const PAD_CODEWORDS = [0xec, 0x11] as const;

/** Data codewords for a version that is known to hold the bytes. */
export function dataCodewords(bytes: Uint8Array, version: number, ecc: QrEcc, utf8Eci: boolean): Uint8Array {
  const capacity = blockLayout(version, ecc).dataCodewords;
  const countBits = byteCountBits(version);
  const headerBits = (utf8Eci ? ECI_HEADER_BITS : 0) + 4 + countBits;
  if (bytes.length >= 2 ** countBits || headerBits + bytes.length * 8 > capacity * 8) {
    throw new RangeError(`${bytes.length} bytes do not fit QR version ${version}-${ecc}`);
  }
  const out = new Uint8Array(capacity);
  let at = 0;
  let pending = 0; // the low `pendingBits` bits, fewer than 8, wait for a whole byte
  let pendingBits = 0;
  const append = (value: number, bits: number): void => {
    pending = (pending << bits) | value;
    pendingBits += bits;
    while (pendingBits >= 8) {
      pendingBits -= 8;
      out[at++] = pending >>> pendingBits;
    }
    pending &= (1 << pendingBits) - 1;
  };
  if (utf8Eci) {
    append(MODE_ECI, 4);
    append(ECI_UTF8, 8);
  }
  append(MODE_BYTE, 4);
  append(bytes.length, countBits);
  for (let i = 0; i < bytes.length; i++) append(bytes[i] ?? 0, 8);
  // The terminator: four 0 bits, fewer if the symbol is full. Then 0 bits to a byte boundary.
  append(0, Math.min(4, (capacity - at) * 8 - pendingBits));
  if (pendingBits > 0) append(0, 8 - pendingBits);
  for (let k = 0; at < capacity; at++, k ^= 1) out[at] = PAD_CODEWORDS[k] ?? 0;
  return out;
}

/** Splits data codewords into blocks, adds each block's EC codewords and interleaves them all. */
export function interleave(data: Uint8Array, version: number, ecc: QrEcc): Uint8Array {
  const { blocks, ecPerBlock, shortDataLength, shortBlocks, dataCodewords: dataLength } = blockLayout(version, ecc);
  if (data.length !== dataLength) throw new RangeError(`QR version ${version}-${ecc} takes ${dataLength} data codewords, not ${data.length}`);
  const out = new Uint8Array(dataLength + blocks * ecPerBlock);
  const starts = new Array<number>(blocks);
  const ec: Uint8Array[] = [];
  for (let b = 0, start = 0; b < blocks; b++) {
    const length = shortDataLength + (b < shortBlocks ? 0 : 1);
    starts[b] = start;
    ec.push(ecCodewords(data.subarray(start, start + length), ecPerBlock));
    start += length;
  }
  let k = 0;
  for (let i = 0; i <= shortDataLength; i++) {
    // Only the long blocks have a codeword at the last index.
    for (let b = i < shortDataLength ? 0 : shortBlocks; b < blocks; b++) out[k++] = data[(starts[b] ?? 0) + i] ?? 0;
  }
  for (let i = 0; i < ecPerBlock; i++) {
    for (let b = 0; b < blocks; b++) out[k++] = ec[b]?.[i] ?? 0;
  }
  return out;
}
