// Data masks and the penalty score that picks one (§7.8). A mask flips the data modules where its
// condition holds; the encoder tries all eight and keeps the one scoring lowest. This runs eight
// times per symbol, so the scoring walks each line once through lookup tables instead of branching
// on every module.

export const MASK_COUNT = 8;

// Penalty weights N1–N4 of §7.8.3.
const RUN = 3;
const BLOCK = 3;
const FINDER_LIKE = 40;
const BALANCE_STEP = 10;

/** Whether mask `mask` flips the module at column x, row y (Table 10, with i = row, j = column). */
function flips(mask: number, x: number, y: number): boolean {
  switch (mask) {
    case 0: return (x + y) % 2 === 0;
    case 1: return y % 2 === 0;
    case 2: return x % 3 === 0;
    case 3: return (x + y) % 3 === 0;
    case 4: return (Math.floor(y / 2) + Math.floor(x / 3)) % 2 === 0;
    case 5: return ((x * y) % 2) + ((x * y) % 3) === 0;
    case 6: return (((x * y) % 2) + ((x * y) % 3)) % 2 === 0;
    default: return (((x + y) % 2) + ((x * y) % 3)) % 2 === 0;
  }
}

// Per symbol size, the eight masks as grids with 1 where a data module flips; a symbol is then
// masked with one XOR per module. Sizes in use are few (one per version ever encoded).
const patterns = new Map<number, Uint8Array[]>();

function maskPatterns(reserved: Uint8Array, size: number): Uint8Array[] {
  const cached = patterns.get(size);
  if (cached !== undefined) return cached;
  const built: Uint8Array[] = [];
  for (let mask = 0; mask < MASK_COUNT; mask++) {
    const pattern = new Uint8Array(size * size);
    for (let y = 0, i = 0; y < size; y++) {
      for (let x = 0; x < size; x++, i++) if (reserved[i] === 0 && flips(mask, x, y)) pattern[i] = 1;
    }
    built.push(pattern);
  }
  patterns.set(size, built);
  return built;
}

/** Writes `source` with mask `mask` applied to its data modules into `target`. */
export function applyMask(target: Uint8Array, source: Uint8Array, reserved: Uint8Array, size: number, mask: number): void {
  const pattern = maskPatterns(reserved, size)[mask] ?? new Uint8Array(0);
  for (let i = 0; i < target.length; i++) target[i] = (source[i] ?? 0) ^ (pattern[i] ?? 0);
}

// 1011101 with four light modules after it, or before it, as 11-bit windows (newest bit lowest).
const FINDER_THEN_LIGHT = 0b10111010000;
const LIGHT_THEN_FINDER = 0b00001011101;
const WINDOW = 0x7ff;

/**
 * Score of the newest module of an 11-module window, for a module at least the sixth of its line.
 * A run of n ≥ 5 scores 3 + (n − 5): one for each module that ends five alike, plus two when the
 * module before those five differs (the fifth module of the run).
 */
const LINE_SCORE = new Uint8Array(WINDOW + 1);
for (let w = 0; w <= WINDOW; w++) {
  const five = w & 0x1f;
  if (five === 0 || five === 0x1f) LINE_SCORE[w] = 1 + (((w >>> 5) & 1) !== (w & 1) ? RUN - 1 : 0);
  if (w === FINDER_THEN_LIGHT || w === LIGHT_THEN_FINDER) LINE_SCORE[w] = (LINE_SCORE[w] ?? 0) + FINDER_LIKE;
}

/** Score of a 2×2 block given as four bits; a table, as a branch here is mispredicted often. */
const BLOCK_SCORE = new Uint8Array(16);
BLOCK_SCORE[0] = BLOCK;
BLOCK_SCORE[0xf] = BLOCK;

/**
 * Penalty of a finished grid: runs of five or more same-coloured modules in a line (N1), 2×2
 * same-coloured blocks (N2), 1:1:3:1:1 finder look-alikes with four light modules on one side (N3)
 * and the distance of the dark share from 50 % (N4). The four light modules of N3 may lie in the
 * quiet zone, which is light.
 */
export function penalty(modules: Uint8Array, size: number): number {
  let score = 0;
  for (let k = 0; k < size; k++) score += linePenalty(modules, k * size, 1, size) + linePenalty(modules, k, size, size);

  let dark = 0;
  for (let y = 0; y < size - 1; y++) {
    let i = y * size;
    // Two rows at once: the low four bits are the 2×2 block ending at the current column.
    let block = ((modules[i] ?? 0) << 1) | (modules[i + size] ?? 0);
    dark += modules[i] ?? 0;
    for (let x = 1; x < size; x++) {
      i++;
      const top = modules[i] ?? 0;
      dark += top;
      block = ((block << 2) | (top << 1) | (modules[i + size] ?? 0)) & 0xf;
      score += BLOCK_SCORE[block] ?? 0;
    }
  }
  for (let i = (size - 1) * size; i < size * size; i++) dark += modules[i] ?? 0;

  const total = size * size;
  return score + Math.floor(Math.abs(dark * 20 - total * 10) / total) * BALANCE_STEP;
}

/** N1 and N3 along one row or column, from `start` in steps of `stride`. */
function linePenalty(modules: Uint8Array, start: number, stride: number, size: number): number {
  // Bits shifted in from before the line are 0: the light quiet zone, which N3 may use.
  let window = 0;
  let i = start;
  for (let k = 0; k < 5; k++, i += stride) window = (window << 1) | (modules[i] ?? 0);
  let score = window === 0 || window === 0x1f ? RUN : 0;
  for (let k = 5; k < size; k++, i += stride) {
    window = ((window << 1) | (modules[i] ?? 0)) & WINDOW;
    score += LINE_SCORE[window] ?? 0;
  }
  for (let k = 1; k <= 4; k++) if (((window << k) & WINDOW) === FINDER_THEN_LIGHT) score += FINDER_LIKE;
  return score;
}
