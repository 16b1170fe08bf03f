/**
 * One page's drawing operations. Callers place things from the TOP-left corner, y growing downward
 * (the way a layout is thought about); PDF's own origin is bottom-left, so every y is flipped here.
 * Operators are collected as strings of WinAnsi bytes and joined once when the document is written.
 */
import { encodedWidth, FONT_NAMES } from './metrics.ts';
import type { FontName } from './metrics.ts';
import { literalString, num } from './syntax.ts';
import { toWinAnsi } from './winansi.ts';

/** The resource name each font is known by inside content streams. */
export const FONT_RESOURCES = { Helvetica: 'F1', 'Helvetica-Bold': 'F2' } as const satisfies Record<FontName, string>;

export const TEXT_ALIGNS = ['left', 'right', 'center'] as const;
export type TextAlign = (typeof TEXT_ALIGNS)[number];

export interface TextOptions {
  font: FontName;
  /** Font size in points. */
  size: number;
  /** Which end of the text x names; left by default. */
  align?: TextAlign;
}

export interface RectOptions {
  /** Fill with this gray, 0 black to 1 white; no fill when absent. */
  fill?: number;
  /** Draw the outline in black; by default only when there is no fill. */
  stroke?: boolean;
  /** Outline width in points; 1 by default. */
  lineWidth?: number;
}

/** Bounds a squares() grid so a bad size fails fast instead of spinning; a QR code is at most 177². */
export const MAX_SQUARE_CELLS = 1_000_000;

export class PdfPage {
  readonly width: number;
  readonly height: number;
  private readonly ops: string[] = [];

  constructor(width: number, height: number) {
    this.width = width;
    this.height = height;
  }

  /** Text whose baseline is `y` points below the top of the page. */
  text(x: number, y: number, str: string, options: TextOptions): this {
    const { font, size, align = 'left' } = options;
    if (!FONT_NAMES.includes(font)) throw new RangeError(`unknown font: ${String(font)}`);
    if (!TEXT_ALIGNS.includes(align)) throw new RangeError(`unknown alignment: ${String(align)}`);
    positive('font size', size);
    const bytes = toWinAnsi(str);
    if (bytes.length === 0) return this;
    let left = x;
    if (align !== 'left') {
      const width = (encodedWidth(bytes, font) * size) / 1000;
      left = align === 'right' ? x - width : x - width / 2;
    }
    this.ops.push(
      `BT /${FONT_RESOURCES[font]} ${num(size)} Tf ${num(left)} ${num(this.height - y)} Td ${literalString(bytes)} Tj ET\n`,
    );
    return this;
  }

  /** A rectangle whose top-left corner is (x, y), `w` wide and `h` tall. */
  rect(x: number, y: number, w: number, h: number, options: RectOptions = {}): this {
    const { fill, lineWidth = 1 } = options;
    const stroke = options.stroke ?? fill === undefined;
    if (fill === undefined && !stroke) return this;
    const parts = ['q '];
    if (fill !== undefined) {
      if (!(fill >= 0 && fill <= 1)) throw new RangeError(`fill gray must be between 0 and 1, not ${fill}`);
      parts.push(`${num(fill)} g `);
    }
    if (stroke) parts.push(`${num(nonNegative('line width', lineWidth))} w `);
    const paint = fill === undefined ? 'S' : stroke ? 'B' : 'f';
    parts.push(`${num(x)} ${num(this.height - y - h)} ${num(w)} ${num(h)} re ${paint} Q\n`);
    this.ops.push(parts.join(''));
    return this;
  }

  /** A straight black line `width` points thick. */
  line(x1: number, y1: number, x2: number, y2: number, width = 1): this {
    this.ops.push(
      `q ${num(nonNegative('line width', width))} w ${num(x1)} ${num(this.height - y1)} m ${num(x2)} ${num(this.height - y2)} l S Q\n`,
    );
    return this;
  }

  /**
   * A grid of `cols` × `rows` black squares `cell` points wide whose top-left corner is (x, y);
   * `isDark(col, row)` says which cells are filled. Built for QR codes: the whole grid is one path
   * filled once, and each horizontal run of dark cells is a single rectangle, so a 2,000-module
   * code costs a few hundred operators and shows no hairline seams between neighbours.
   */
  squares(x: number, y: number, cell: number, isDark: (col: number, row: number) => boolean, cols: number, rows: number): this {
    positive('cell size', cell);
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 0 || rows < 0 || cols * rows > MAX_SQUARE_CELLS) {
      throw new RangeError(`a squares grid needs whole, non-negative columns and rows, at most ${MAX_SQUARE_CELLS} cells`);
    }
    const size = num(cell);
    const path: string[] = [];
    for (let row = 0; row < rows; row++) {
      const bottom = num(this.height - y - (row + 1) * cell);
      let runStart = -1;
      for (let col = 0; col <= cols; col++) {
        const dark = col < cols && isDark(col, row);
        if (dark && runStart < 0) {
          runStart = col;
        } else if (!dark && runStart >= 0) {
          path.push(`${num(x + runStart * cell)} ${bottom} ${num((col - runStart) * cell)} ${size} re\n`);
          runStart = -1;
        }
      }
    }
    if (path.length > 0) this.ops.push('q 0 g\n', path.join(''), 'f Q\n');
    return this;
  }

  /** The image `name` (PdfDocument.addImage) in the box whose top-left corner is (x, y), `w` × `h` points. */
  image(name: string, x: number, y: number, w: number, h: number): this {
    if (!/^Im[1-9][0-9]*$/.test(name)) throw new RangeError(`not an image name: ${name}`);
    positive('image width', w);
    positive('image height', h);
    this.ops.push(`q ${num(w)} 0 0 ${num(h)} ${num(x)} ${num(this.height - y - h)} cm /${name} Do Q\n`);
    return this;
  }

  /** The page's content stream, as a byte string (chars 0–255). */
  content(): string {
    return this.ops.join('');
  }
}

function positive(what: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${what} must be a positive number, not ${value}`);
  return value;
}

function nonNegative(what: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`${what} must be a non-negative number, not ${value}`);
  return value;
}
