// The printed e-CF is laid out as a column of blocks (the header, each line, the totals), then
// cut into pages. Blocks only know their height until they are drawn, so a page's height can
// follow its content (the receipt roll) and "Página N de M" knows M when it is drawn.
import { type FontName, mm, type PdfPage, textWidth, wrapText } from '../../lib/pdf/index.ts';
import { encodeQr, type QrCode } from '../../lib/qr/index.ts';

export interface Block {
  readonly height: number;
  /** Item lines get the table's column headings again at the top of a further page. */
  readonly isLine?: boolean;
  draw(page: PdfPage, top: number): void;
}

/**
 * Cuts the blocks into pages of at most `capacity` points. Each further page opens with
 * `continuation(next)`; a block that would not fit moves whole to the next page (one taller
 * than a page gets a page of its own).
 */
export function paginate(blocks: readonly Block[], capacity: number, continuation: (next: Block) => readonly Block[]): Block[][] {
  const pages: Block[][] = [[]];
  let used = 0;
  for (const block of blocks) {
    let page = pages[pages.length - 1] as Block[];
    if (used + block.height > capacity && page.length > 0) {
      page = [...continuation(block)];
      pages.push(page);
      used = page.reduce((sum, b) => sum + b.height, 0);
    }
    page.push(block);
    used += block.height;
  }
  return pages;
}

/** The blocks' total height. */
export function heightOf(blocks: readonly Block[]): number {
  return blocks.reduce((sum, b) => sum + b.height, 0);
}

/** Draws the blocks one under the other from `top`. */
export function drawBlocks(page: PdfPage, blocks: readonly Block[], top: number): void {
  let y = top;
  for (const block of blocks) {
    block.draw(page, y);
    y += block.height;
  }
}

export interface Style {
  readonly font: FontName;
  readonly size: number;
}

/** Text shrunk as needed to fit `maxWidth`, so a long amount never runs into its neighbour. */
export function fitText(page: PdfPage, x: number, y: number, str: string, style: Style, maxWidth: number, align: 'left' | 'right' | 'center' = 'left'): void {
  if (str === '') return;
  const width = textWidth(str, style.font, style.size);
  const size = width > maxWidth ? Math.max(style.size * (maxWidth / width), 1) : style.size;
  page.text(x, y, str, { font: style.font, size, align });
}

/** A paragraph wrapped to `width`, `leading` points per line; no lines for empty text. */
export function paragraph(str: string, style: Style, width: number, leading: number, x: number, align: 'left' | 'center' = 'left'): Block {
  const lines = str === '' ? [] : wrapText(str, style.font, style.size, width);
  return {
    height: lines.length * leading,
    draw(page, top) {
      lines.forEach((line, i) => page.text(align === 'center' ? x + width / 2 : x, top + (i + 1) * leading - leading * 0.25, line, { ...style, align }));
    },
  };
}

/** Empty space. */
export function gap(height: number): Block {
  return { height, draw() {} };
}

/** A horizontal rule across `width` from `x`, in the middle of `height`. */
export function rule(x: number, width: number, height: number, lineWidth = 0.5): Block {
  return { height, draw: (page, top) => page.line(x, top + height / 2, x + width, top + height / 2, lineWidth) };
}

/** Light modules around the code on every side, as ISO/IEC 18004 asks for. */
export const QR_QUIET_MODULES = 4;
/** DGII's clear margin around the QR code: 3 mm (Informe Técnico e-CF 17.2.3). */
export const QR_MIN_MARGIN = mm(3);

export interface PlacedQr {
  readonly code: QrCode;
  /** The symbol's side in points, without the quiet zone. */
  readonly side: number;
  /** The quiet zone's width in points on each side: four modules, and never under DGII's 3 mm. */
  readonly quiet: number;
  /** Draws the symbol with the top-left corner of its quiet zone at (x, y). */
  draw(page: PdfPage, x: number, y: number): void;
}

/** The QR code of `data` (level M), its symbol `side` points square. */
export function placeQr(data: string, side: number): PlacedQr {
  const code = encodeQr(data, { ecc: 'M' });
  const cell = side / code.size;
  const quiet = Math.max(QR_QUIET_MODULES * cell, QR_MIN_MARGIN);
  return {
    code, side, quiet,
    draw(page, x, y) {
      page.squares(x + quiet, y + quiet, cell, (col, row) => code.isDark(col, row), code.size, code.size);
    },
  };
}

/**
 * A mark of a document without fiscal value ("RECHAZADO — sin validez fiscal"): large bold text in
 * a heavy frame across `width`, so no one takes the page for a valid e-CF.
 */
export function markBanner(marks: readonly string[], x: number, width: number, size: number): Block[] {
  return marks.map((mark) => {
    const height = size * 1.9;
    return {
      height: height + 6,
      draw(page: PdfPage, top: number) {
        page.rect(x, top, width, height, { fill: 0.9, stroke: true, lineWidth: 2.5 });
        fitText(page, x + width / 2, top + height / 2 + size * 0.36, mark, { font: 'Helvetica-Bold', size }, width - 12, 'center');
      },
    };
  });
}

/** The logo scaled to fit `maxWidth` × `maxHeight` (never enlarged past 1 px per point), then `after` points of space. */
export function logoBlock(logo: { name: string; width: number; height: number } | null | undefined, x: number, width: number, maxWidth: number, maxHeight: number, align: 'left' | 'center', after: number): Block[] {
  if (logo === null || logo === undefined) return [];
  const scale = Math.min(maxWidth / logo.width, maxHeight / logo.height, 1);
  const w = logo.width * scale;
  const h = logo.height * scale;
  return [{ height: h + after, draw: (page, top) => page.image(logo.name, align === 'center' ? x + (width - w) / 2 : x, top, w, h) }];
}
