// The module grid (§7.3, §7.7–§7.9): function patterns, format and version information with their
// BCH codes, and the placement of codeword bits in two-module columns zigzagging up and down.
// Grids are row-major Uint8Arrays, 1 = dark, indexed y * size + x.
import { alignmentPositions, ECC_LEVELS, symbolSize, type QrEcc } from './tables.ts';

/** Everything about a version's grid that does not depend on the data; built once per version. */
export interface Template {
  readonly version: number;
  readonly size: number;
  /** Function patterns and version information drawn; format areas and data modules light. */
  readonly modules: Uint8Array;
  /** 1 for every module that is not a data module (format areas included). */
  readonly reserved: Uint8Array;
  /** Grid index of each format bit i: copy one at [i], copy two at [15 + i]. */
  readonly formatIndices: Uint16Array;
  /** Grid indices of the data modules in the order codeword bits fill them. */
  readonly dataOrder: Uint16Array;
}

/** 15-bit format information: level and mask, BCH(15,5) protected and XOR-masked (§7.9.1). */
export function formatBits(ecc: QrEcc, mask: number): number {
  const data = (ECC_LEVELS[ecc].formatBits << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  return ((data << 10) | (rem & 0x3ff)) ^ 0x5412;
}

/** 18-bit version information, BCH(18,6) protected (§7.10); only versions 7 and up carry it. */
export function versionBits(version: number): number {
  let rem = version;
  for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
  return (version << 12) | (rem & 0xfff);
}

const templates = new Map<number, Template>();

export function template(version: number): Template {
  const cached = templates.get(version);
  if (cached !== undefined) return cached;
  const built = buildTemplate(version);
  templates.set(version, built);
  return built;
}

function buildTemplate(version: number): Template {
  const size = symbolSize(version);
  const modules = new Uint8Array(size * size);
  const reserved = new Uint8Array(size * size);
  const set = (x: number, y: number, dark: boolean): void => {
    modules[y * size + x] = dark ? 1 : 0;
    reserved[y * size + x] = 1;
  };

  // Timing first: the finders and alignment patterns drawn after it overwrite where they meet.
  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  // Finders with their light separators, clipped at the symbol's edge.
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]] as const) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx;
        const y = cy + dy;
        if (x < 0 || x >= size || y < 0 || y >= size) continue;
        const ring = Math.max(Math.abs(dx), Math.abs(dy));
        set(x, y, ring !== 2 && ring !== 4);
      }
    }
  }
  // Alignment patterns everywhere on the grid of positions except over the three finders.
  const positions = alignmentPositions(version);
  const last = positions.length - 1;
  for (let i = 0; i <= last; i++) {
    for (let j = 0; j <= last; j++) {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue;
      const cx = positions[i] ?? 0;
      const cy = positions[j] ?? 0;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }
  }

  const formatIndices = new Uint16Array(30);
  const at = (x: number, y: number): number => y * size + x;
  for (let i = 0; i < 15; i++) {
    formatIndices[i] = i < 6 ? at(8, i) : i === 6 ? at(8, 7) : i === 7 ? at(8, 8) : i === 8 ? at(7, 8) : at(14 - i, 8);
    formatIndices[15 + i] = i < 8 ? at(size - 1 - i, 8) : at(8, size - 15 + i);
  }
  for (const index of formatIndices) reserved[index] = 1;
  set(8, size - 8, true); // the dark module beside the lower-left format copy

  if (version >= 7) {
    const bits = versionBits(version);
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      set(a, b, dark);
      set(b, a, dark);
    }
  }

  return { version, size, modules, reserved, formatIndices, dataOrder: zigzag(size, reserved) };
}

/**
 * Two-module-wide columns from the right edge, alternately upwards and downwards, right module
 * before left; the vertical timing column is skipped as a whole.
 */
function zigzag(size: number, reserved: Uint8Array): Uint16Array {
  let count = 0;
  for (const r of reserved) if (r === 0) count++;
  const order = new Uint16Array(count);
  let k = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let step = 0; step < size; step++) {
      const y = upward ? size - 1 - step : step;
      for (let x = right; x >= right - 1; x--) {
        if (reserved[y * size + x] === 0) order[k++] = y * size + x;
      }
    }
  }
  return order;
}

/** Writes codeword bits, most significant first; remainder modules past the end stay light. */
export function placeCodewords(modules: Uint8Array, tpl: Template, codewords: Uint8Array): void {
  const order = tpl.dataOrder;
  const bits = Math.min(order.length, codewords.length * 8);
  for (let i = 0; i < bits; i++) modules[order[i] ?? 0] = ((codewords[i >>> 3] ?? 0) >>> (7 - (i & 7))) & 1;
}

export function drawFormat(modules: Uint8Array, tpl: Template, bits: number): void {
  const indices = tpl.formatIndices;
  for (let i = 0; i < 15; i++) {
    const bit = (bits >>> i) & 1;
    modules[indices[i] ?? 0] = bit;
    modules[indices[15 + i] ?? 0] = bit;
  }
}
