/** Public surface of the PDF writer: PDF 1.4 pages in Helvetica, for printed invoices and receipts. */
export { PdfDocument, PRODUCER } from './document.ts';
export type { DocumentInfo } from './document.ts';
export { MAX_SQUARE_CELLS, PdfPage, TEXT_ALIGNS } from './page.ts';
export type { RectOptions, TextAlign, TextOptions } from './page.ts';
export { A4, LETTER, MAX_PAGE_SIDE, MIN_PAGE_SIDE, mm, ROLL_80MM_WIDTH, roll80mm } from './page-sizes.ts';
export type { PageSize } from './page-sizes.ts';
export { encodedWidth, FONT_NAMES, glyphWidth, textWidth } from './metrics.ts';
export type { FontName } from './metrics.ts';
export { wrapText } from './wrap.ts';
export { REPLACEMENT_CHAR, toWinAnsi, winAnsiBytes } from './winansi.ts';
export { ImageError, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, readImage, sniffImage } from './image.ts';
export type { ImageType, PdfImage } from './image.ts';
