/**
 * A minimal PDF 1.4 writer: pages of text, rectangles, lines and QR-style squares in the two
 * Helvetica standard fonts. Nothing is embedded (every reader carries the standard 14 fonts), content
 * streams are Flate-compressed, and the output depends only on what was drawn: no clock, no random
 * file identifier, so the same invoice always gives the same bytes.
 */
import { deflateSync } from 'node:zlib';
import { FONT_NAMES } from './metrics.ts';
import { LETTER, checkPageSize } from './page-sizes.ts';
import type { PdfImage } from './image.ts';
import { FONT_RESOURCES, PdfPage } from './page.ts';
import { dateString, num, textString } from './syntax.ts';

export interface DocumentInfo {
  title?: string;
  author?: string;
  /** Written only when given: the writer never reads the clock. */
  creationDate?: Date;
}

export const PRODUCER = 'ecf-service';

// The second line's high bytes tell transfer tools the file is binary (PDF reference, 3.4.1).
const HEADER = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';

// Fixed object numbers; pages follow, each as a page object and its content stream.
const CATALOG = 1;
const PAGES = 2;
const FIRST_FONT = 3;
const INFO = FIRST_FONT + FONT_NAMES.length;
const FIRST_PAGE = INFO + 1;

export class PdfDocument {
  private readonly pages: PdfPage[] = [];
  private readonly images: PdfImage[] = [];

  /** Adds an image to the file (once, however often it is drawn) and returns its name for PdfPage.image. */
  addImage(image: PdfImage): string {
    this.images.push(image);
    return `Im${this.images.length}`;
  }

  /** Adds a page `width` × `height` points (Letter by default) and returns it for drawing. */
  addPage(width: number = LETTER.width, height: number = LETTER.height): PdfPage {
    checkPageSize(width, height);
    const page = new PdfPage(width, height);
    this.pages.push(page);
    return page;
  }

  get pageCount(): number {
    return this.pages.length;
  }

  /** The pages added so far, to draw on every one after a layout (a draft's mark). */
  allPages(): readonly PdfPage[] {
    return this.pages;
  }

  /** The complete file. May be called again after more drawing; each call writes the current state. */
  toBuffer(info: DocumentInfo = {}): Buffer {
    if (this.pages.length === 0) throw new RangeError('a PDF needs at least one page');
    const out = new FileWriter();
    out.raw(HEADER);

    const pageRef = (i: number): string => `${FIRST_PAGE + 2 * i} 0 R`;
    out.object(CATALOG, `<< /Type /Catalog /Pages ${PAGES} 0 R >>`);
    out.object(PAGES, `<< /Type /Pages /Kids [${this.pages.map((_, i) => pageRef(i)).join(' ')}] /Count ${this.pages.length} >>`);
    const fontRefs: string[] = [];
    FONT_NAMES.forEach((font, i) => {
      out.object(FIRST_FONT + i, `<< /Type /Font /Subtype /Type1 /BaseFont /${font} /Encoding /WinAnsiEncoding >>`);
      fontRefs.push(`/${FONT_RESOURCES[font]} ${FIRST_FONT + i} 0 R`);
    });
    out.object(INFO, infoDictionary(info));

    // Images follow the pages: each its object, and its soft mask's after it when it has one.
    let next = FIRST_PAGE + 2 * this.pages.length;
    const imageRefs: string[] = [];
    for (const [i, image] of this.images.entries()) {
      const id = next;
      const mask = image.alpha === null ? null : id + 1;
      next += mask === null ? 1 : 2;
      imageRefs.push(`/Im${i + 1} ${id} 0 R`);
      const common = `/Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /BitsPerComponent 8`;
      out.rawStream(id, `${common} /ColorSpace /${image.colorSpace} /Filter /${image.filter}${mask === null ? '' : ` /SMask ${mask} 0 R`}`, image.data);
      if (mask !== null && image.alpha !== null) out.rawStream(mask, `${common} /ColorSpace /DeviceGray /Filter /FlateDecode`, image.alpha);
    }
    const xobjects = imageRefs.length === 0 ? '' : ` /XObject << ${imageRefs.join(' ')} >>`;
    const resources = `<< /Font << ${fontRefs.join(' ')} >>${xobjects} >>`;
    this.pages.forEach((page, i) => {
      const id = FIRST_PAGE + 2 * i;
      out.object(
        id,
        `<< /Type /Page /Parent ${PAGES} 0 R /MediaBox [0 0 ${num(page.width)} ${num(page.height)}] ` +
          `/Resources ${resources} /Contents ${id + 1} 0 R >>`,
      );
      out.stream(id + 1, deflateSync(Buffer.from(page.content(), 'latin1')));
    });

    return out.finish(`/Root ${CATALOG} 0 R /Info ${INFO} 0 R`);
  }
}

function infoDictionary(info: DocumentInfo): string {
  const entries = [`/Producer ${textString(PRODUCER)}`];
  if (info.title !== undefined) entries.push(`/Title ${textString(info.title)}`);
  if (info.author !== undefined) entries.push(`/Author ${textString(info.author)}`);
  if (info.creationDate !== undefined) entries.push(`/CreationDate ${dateString(info.creationDate)}`);
  return `<< ${entries.join(' ')} >>`;
}

/** Appends objects, remembering where each starts, and closes the file with its xref table. */
class FileWriter {
  private readonly chunks: Buffer[] = [];
  private readonly offsets: number[] = [];
  private length = 0;

  raw(text: string): void {
    this.bytes(Buffer.from(text, 'latin1'));
  }

  object(id: number, body: string): void {
    this.offsets[id] = this.length;
    this.raw(`${id} 0 obj\n${body}\nendobj\n`);
  }

  stream(id: number, compressed: Buffer): void {
    this.rawStream(id, '/Filter /FlateDecode', compressed);
  }

  /** A stream whose dictionary entries (besides /Length) are `dict`. */
  rawStream(id: number, dict: string, data: Buffer): void {
    this.offsets[id] = this.length;
    this.raw(`${id} 0 obj\n<< /Length ${data.length} ${dict} >>\nstream\n`);
    this.bytes(data);
    this.raw('\nendstream\nendobj\n');
  }

  finish(trailerEntries: string): Buffer {
    const size = this.offsets.length;
    const xrefAt = this.length;
    // Every entry is exactly 20 bytes: 10-digit offset, 5-digit generation, type, space + LF.
    const xref = ['xref\n', `0 ${size}\n`, '0000000000 65535 f \n'];
    for (let id = 1; id < size; id++) {
      const offset = this.offsets[id];
      if (offset === undefined) throw new Error(`PDF object ${id} was never written`);
      xref.push(`${String(offset).padStart(10, '0')} 00000 n \n`);
    }
    xref.push(`trailer\n<< /Size ${size} ${trailerEntries} >>\nstartxref\n${xrefAt}\n%%EOF\n`);
    this.raw(xref.join(''));
    return Buffer.concat(this.chunks, this.length);
  }

  private bytes(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }
}
