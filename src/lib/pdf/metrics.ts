/**
 * Advance widths of the two standard-14 fonts the invoices use, in glyph-space units (1/1000 of the
 * font size), indexed by WinAnsi code. Transcribed from Adobe's public Core14 AFM files
 * (Helvetica.afm and Helvetica-Bold.afm, 1985–1997), mapping each WinAnsi code to its glyph name:
 * 0x27 is quotesingle and 0x60 grave (not the quoteright/quoteleft of StandardEncoding), 0x2D and
 * 0xAD are both hyphen, 0xA0 is space. The codes WinAnsi leaves undefined (0x7F, 0x81, 0x8D, 0x8F,
 * 0x90, 0x9D) carry the bullet's width, as the PDF reference says readers show a bullet there; the
 * encoder never produces them.
 */
import { toWinAnsi } from './winansi.ts';

export const FONT_NAMES = ['Helvetica', 'Helvetica-Bold'] as const;
export type FontName = (typeof FONT_NAMES)[number];

// Codes 0x20–0xFF, sixteen to a row; the comment is the first code of the row.
const HELVETICA = [
  /* 20 */ 278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
  /* 30 */ 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
  /* 40 */ 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
  /* 50 */ 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
  /* 60 */ 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
  /* 70 */ 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 350,
  /* 80 */ 556, 350, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 350, 611, 350,
  /* 90 */ 350, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944, 350, 500, 667,
  /* A0 */ 278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333,
  /* B0 */ 400, 584, 333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611,
  /* C0 */ 667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
  /* D0 */ 722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
  /* E0 */ 556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278,
  /* F0 */ 556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500,
];

const HELVETICA_BOLD = [
  /* 20 */ 278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
  /* 30 */ 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
  /* 40 */ 975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
  /* 50 */ 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
  /* 60 */ 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
  /* 70 */ 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, 350,
  /* 80 */ 556, 350, 278, 556, 500, 1000, 556, 556, 333, 1000, 667, 333, 1000, 350, 611, 350,
  /* 90 */ 350, 278, 278, 500, 500, 350, 556, 1000, 333, 1000, 556, 333, 944, 350, 500, 667,
  /* A0 */ 278, 333, 556, 556, 556, 556, 280, 556, 333, 737, 370, 556, 584, 333, 737, 333,
  /* B0 */ 400, 584, 333, 333, 333, 611, 556, 278, 333, 333, 365, 556, 834, 834, 834, 611,
  /* C0 */ 722, 722, 722, 722, 722, 722, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
  /* D0 */ 722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
  /* E0 */ 556, 556, 556, 556, 556, 556, 889, 556, 556, 556, 556, 556, 278, 278, 278, 278,
  /* F0 */ 611, 611, 611, 611, 611, 611, 611, 584, 611, 611, 611, 611, 611, 556, 611, 556,
];

function table(widths: readonly number[]): Uint16Array {
  if (widths.length !== 224) throw new Error(`width table has ${widths.length} entries, expected 224`);
  const t = new Uint16Array(256); // codes below 0x20 are never emitted and stay 0
  t.set(widths, 0x20);
  return t;
}

const WIDTHS: Record<FontName, Uint16Array> = {
  Helvetica: table(HELVETICA),
  'Helvetica-Bold': table(HELVETICA_BOLD),
};

/** Width of one WinAnsi code in glyph units (1/1000 em). */
export function glyphWidth(code: number, font: FontName): number {
  return WIDTHS[font][code & 0xff] ?? 0;
}

/** Width in glyph units of an already-encoded WinAnsi byte string (see toWinAnsi). */
export function encodedWidth(bytes: string, font: FontName): number {
  const w = WIDTHS[font];
  let units = 0;
  for (let i = 0; i < bytes.length; i++) units += w[bytes.charCodeAt(i) & 0xff] ?? 0;
  return units;
}

/** Width in points of `text` set in `font` at `size` points, as it will be printed. */
export function textWidth(text: string, font: FontName, size: number): number {
  return (encodedWidth(toWinAnsi(text), font) * size) / 1000;
}
