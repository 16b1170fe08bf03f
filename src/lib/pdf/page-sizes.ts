/** Page sizes in PostScript points (1/72 inch). */

export interface PageSize {
  readonly width: number;
  readonly height: number;
}

export const LETTER: PageSize = { width: 612, height: 792 };
export const A4: PageSize = { width: 595.28, height: 841.89 };

/** Points in `mm` millimetres. */
export function mm(millimetres: number): number {
  return (millimetres * 72) / 25.4;
}

/** Width of an 80 mm thermal receipt roll: 226.77 pt. */
export const ROLL_80MM_WIDTH = Math.round(mm(80) * 100) / 100;

/** An 80 mm roll page `height` points long; the caller sizes it to the receipt's content. */
export function roll80mm(height: number): PageSize {
  return { width: ROLL_80MM_WIDTH, height };
}

// PDF 1.4 readers (Acrobat's implementation limits) accept pages from 3 to 14,400 units a side.
export const MIN_PAGE_SIDE = 3;
export const MAX_PAGE_SIDE = 14_400;

export function checkPageSize(width: number, height: number): void {
  for (const [name, v] of [['width', width], ['height', height]] as const) {
    if (!Number.isFinite(v) || v < MIN_PAGE_SIDE || v > MAX_PAGE_SIDE) {
      throw new RangeError(`page ${name} must be between ${MIN_PAGE_SIDE} and ${MAX_PAGE_SIDE} points, not ${v}`);
    }
  }
}
