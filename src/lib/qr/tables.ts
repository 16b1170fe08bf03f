// Symbol structure from ISO/IEC 18004:2015, Tables 1, 7, 9 and Annex E, for versions 1–40.

export const MIN_VERSION = 1;
export const MAX_VERSION = 40;

/**
 * Per error-correction level: the two bits it has in the format information (Table 12 — not in
 * L, M, Q, H order), the EC codewords in each block and the number of blocks, indexed by version
 * (index 0 unused). Every block of a version carries the same number of EC codewords; when the data
 * does not divide evenly, the later blocks take one data codeword more (Table 9).
 */
export const ECC_LEVELS = {
  L: {
    formatBits: 0b01,
    ecPerBlock: [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    blocks: [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  },
  M: {
    formatBits: 0b00,
    ecPerBlock: [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
    blocks: [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  },
  Q: {
    formatBits: 0b11,
    ecPerBlock: [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    blocks: [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  },
  H: {
    formatBits: 0b10,
    ecPerBlock: [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    blocks: [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
  },
} as const;

export type QrEcc = keyof typeof ECC_LEVELS;

export function isQrEcc(value: unknown): value is QrEcc {
  return typeof value === 'string' && Object.hasOwn(ECC_LEVELS, value);
}

export function symbolSize(version: number): number {
  return version * 4 + 17;
}

/**
 * Modules left for codewords once the function patterns, format and version information are
 * drawn: the whole square less three finders with separators and format areas (192 + 31 + 2),
 * timing patterns, alignment patterns (less their overlap with timing) and two version blocks.
 */
export function rawDataModules(version: number): number {
  let modules = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const perSide = Math.floor(version / 7) + 2;
    modules -= (25 * perSide - 10) * perSide - 55;
    if (version >= 7) modules -= 36;
  }
  return modules;
}

/** All codewords of a version; the 0–7 leftover modules are remainder bits. */
export function totalCodewords(version: number): number {
  return rawDataModules(version) >>> 3;
}

export interface BlockLayout {
  readonly blocks: number;
  readonly ecPerBlock: number;
  /** Data codewords of the first `shortBlocks` blocks; the rest hold one more. */
  readonly shortDataLength: number;
  readonly shortBlocks: number;
  readonly dataCodewords: number;
}

export function blockLayout(version: number, ecc: QrEcc): BlockLayout {
  const level = ECC_LEVELS[ecc];
  const blocks = level.blocks[version] ?? 0;
  const ecPerBlock = level.ecPerBlock[version] ?? 0;
  if (blocks === 0) throw new RangeError(`QR version ${version} does not exist (1–40)`);
  const total = totalCodewords(version);
  return {
    blocks,
    ecPerBlock,
    shortDataLength: Math.floor(total / blocks) - ecPerBlock,
    shortBlocks: blocks - (total % blocks),
    dataCodewords: total - blocks * ecPerBlock,
  };
}

/** Bits of the byte-mode character count indicator (Table 3). */
export function byteCountBits(version: number): number {
  return version <= 9 ? 8 : 16;
}

/** Bytes a version holds in a single byte-mode segment at a level, after any other header bits. */
export function byteCapacity(version: number, ecc: QrEcc, extraHeaderBits = 0): number {
  const bits = blockLayout(version, ecc).dataCodewords * 8 - extraHeaderBits - 4 - byteCountBits(version);
  return Math.min(bits >>> 3, (1 << byteCountBits(version)) - 1);
}

/**
 * Centre coordinates of the alignment patterns along each axis (Annex E). The spacing is even and
 * as equal as it can be, with any slack in the first gap; version 32 is the one exception the
 * formula would get wrong, so it is given.
 */
export function alignmentPositions(version: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const last = symbolSize(version) - 7;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const positions = new Array<number>(count);
  positions[0] = 6;
  for (let i = count - 1, at = last; i >= 1; i--, at -= step) positions[i] = at;
  return positions;
}
