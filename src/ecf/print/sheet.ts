// The printed e-CF on a sheet (Letter or A4): the issuer and the document's identity on top,
// the buyer and the modified NCF, the lines in a table that continues on further pages, and on
// the last page the totals beside the QR code, security code and signature date.
import { PdfDocument, type PageSize, type PdfPage } from '../../lib/pdf/index.ts';
import type { PrintedLine, PrintFacts } from './facts.ts';
import { type Block, drawBlocks, fitText, gap, heightOf, paginate, paragraph, placeQr, rule, type Style } from './flow.ts';

const MARGIN = 36;
const FOOTER = 30;
const BODY: Style = { font: 'Helvetica', size: 8.5 };
const BOLD: Style = { font: 'Helvetica-Bold', size: 8.5 };
const SMALL: Style = { font: 'Helvetica', size: 7.5 };
const LEADING = 11;
/** The QR symbol's side: DGII asks for at least 2 cm (56.7 pt); more scans easier from paper. */
export const SHEET_QR_SIDE = 96;

// Table columns, measured from the right edge of the content: [right edge offset, width].
const COLUMNS = {
  amount: [0, 80], tax: [86, 36], discount: [128, 62], price: [196, 76],
} as const;
const QUANTITY_WIDTH = 44;
const DESCRIPTION_LEFT = QUANTITY_WIDTH + 6;
const DESCRIPTION_RIGHT = 278;

function labelled([label, value]: readonly [string, string]): string {
  return `${label}: ${value}`;
}

function stack(blocks: readonly Block[]): Block {
  return { height: heightOf(blocks), draw: (page, top) => drawBlocks(page, blocks, top) };
}

function header(f: PrintFacts, x: number, width: number): Block {
  const rightWidth = Math.min(230, width * 0.42);
  const leftWidth = width - rightWidth - 16;
  const rx = x + width - rightWidth;
  const left = stack([
    paragraph(f.issuer.name, { font: 'Helvetica-Bold', size: 12 }, leftWidth, 15, x),
    paragraph(`RNC: ${f.issuer.rnc}`, BOLD, leftWidth, LEADING, x),
    ...f.issuer.details.map((d) => paragraph(d, BODY, leftWidth, LEADING, x)),
  ]);
  const pad = 6;
  const right = stack([
    gap(pad),
    paragraph(f.typeName, { font: 'Helvetica-Bold', size: 10.5 }, rightWidth - 2 * pad, 13, rx + pad),
    paragraph(`e-NCF: ${f.encf}`, { font: 'Helvetica-Bold', size: 10.5 }, rightWidth - 2 * pad, 14, rx + pad),
    ...f.dates.map((d) => paragraph(labelled(d), BODY, rightWidth - 2 * pad, LEADING, rx + pad)),
    gap(pad),
  ]);
  const height = Math.max(left.height, right.height);
  return {
    height: height + 10,
    draw(page, top) {
      left.draw(page, top);
      page.rect(rx, top, rightWidth, right.height, { lineWidth: 0.75 });
      right.draw(page, top);
    },
  };
}

function section(title: string, facts: readonly (readonly [string, string])[], x: number, width: number): Block[] {
  if (facts.length === 0) return [];
  return [
    paragraph(title, { font: 'Helvetica-Bold', size: 9.5 }, width, 13, x),
    ...facts.map((fact) => paragraph(labelled(fact), BODY, width, LEADING, x)),
    gap(6),
  ];
}

function tableHeading(x: number, width: number): Block {
  const height = 16;
  return {
    height: height + 2,
    isLine: false,
    draw(page, top) {
      page.rect(x, top, width, height, { fill: 0.88 });
      const y = top + 11;
      const right = x + width;
      fitText(page, x + 3, y, 'Cant.', BOLD, QUANTITY_WIDTH - 3);
      fitText(page, x + DESCRIPTION_LEFT, y, 'Descripción', BOLD, width - DESCRIPTION_RIGHT - DESCRIPTION_LEFT);
      fitText(page, right - COLUMNS.price[0] - 3, y, 'Precio unitario', BOLD, COLUMNS.price[1], 'right');
      fitText(page, right - COLUMNS.discount[0] - 3, y, 'Descuento', BOLD, COLUMNS.discount[1], 'right');
      fitText(page, right - COLUMNS.tax[0] - 3, y, 'ITBIS', BOLD, COLUMNS.tax[1], 'right');
      fitText(page, right - COLUMNS.amount[0] - 3, y, 'Monto', BOLD, COLUMNS.amount[1], 'right');
    },
  };
}

function lineBlock(line: PrintedLine, x: number, width: number): Block {
  const descWidth = width - DESCRIPTION_RIGHT - DESCRIPTION_LEFT;
  const name = paragraph(line.name, BODY, descWidth, LEADING, x + DESCRIPTION_LEFT);
  const description = paragraph(line.description, SMALL, descWidth, 9.5, x + DESCRIPTION_LEFT);
  const height = Math.max(name.height + description.height, LEADING) + 4;
  return {
    height,
    isLine: true,
    draw(page, top) {
      const y = top + LEADING * 0.75;
      const right = x + width;
      fitText(page, x + 3, y, line.quantity, BODY, QUANTITY_WIDTH - 3);
      name.draw(page, top);
      description.draw(page, top + name.height);
      fitText(page, right - COLUMNS.price[0] - 3, y, line.unitPrice, BODY, COLUMNS.price[1], 'right');
      fitText(page, right - COLUMNS.discount[0] - 3, y, line.discount, BODY, COLUMNS.discount[1], 'right');
      fitText(page, right - COLUMNS.tax[0] - 3, y, line.tax, BODY, COLUMNS.tax[1], 'right');
      fitText(page, right - COLUMNS.amount[0] - 3, y, line.amount, BODY, COLUMNS.amount[1], 'right');
      page.line(x, top + height - 1, right, top + height - 1, 0.25);
    },
  };
}

/** The totals on the right; the QR code with the security code and signature date on the left. */
function closing(f: PrintFacts, x: number, width: number): Block {
  const totalsWidth = 230;
  const rows = f.totals.map((t) => ({ ...t, leading: t.strong ? 15 : 12 }));
  const totalsHeight = rows.reduce((sum, r) => sum + r.leading, 0);
  const qr = placeQr(f.signature.timbreUrl, SHEET_QR_SIDE);
  const box = qr.side + 2 * qr.quiet;
  const textX = x + box + 6;
  const textWidth = width - totalsWidth - box - 18;
  const notes = stack([
    gap(qr.quiet),
    paragraph(`Código de seguridad: ${f.signature.securityCode}`, BOLD, textWidth, 12, textX),
    paragraph(`Fecha de firma digital: ${f.signature.fechaHoraFirma}`, BODY, textWidth, 12, textX),
    gap(4),
    paragraph('Verifique este comprobante en la DGII escaneando el código QR.', SMALL, textWidth, 9.5, textX),
  ]);
  return {
    height: Math.max(totalsHeight, box, notes.height) + 8,
    draw(page, top) {
      let y = top + 8;
      const rx = x + width - totalsWidth;
      for (const r of rows) {
        y += r.leading;
        const style: Style = r.strong ? { font: 'Helvetica-Bold', size: 10 } : BODY;
        fitText(page, rx, y - 3, r.label, style, totalsWidth - 110);
        fitText(page, x + width - 3, y - 3, r.value, style, 105, 'right');
      }
      qr.draw(page, x, top + 8);
      notes.draw(page, top + 8);
    },
  };
}

function footer(page: PdfPage, f: PrintFacts, n: number, m: number, x: number, width: number): void {
  const y = page.height - MARGIN / 2 - 4;
  fitText(page, x, y, `${f.typeName} ${f.encf} - RNC ${f.issuer.rnc}`, SMALL, width - 90);
  page.text(x + width, y, `Página ${n} de ${m}`, { ...SMALL, align: 'right' });
}

export function renderSheet(f: PrintFacts, size: PageSize, doc: PdfDocument): void {
  const x = MARGIN;
  const width = size.width - 2 * MARGIN;
  const blocks: Block[] = [
    header(f, x, width),
    ...section('Comprador', f.buyer, x, width),
    ...section('Comprobante modificado', f.reference, x, width),
    tableHeading(x, width),
    ...f.lines.map((line) => lineBlock(line, x, width)),
    closing(f, x, width),
  ];
  const continuation = (next: Block): Block[] => [
    paragraph(`${f.issuer.name} - RNC ${f.issuer.rnc} - ${f.typeName} ${f.encf} (continuación)`, BOLD, width, 13, x),
    rule(x, width, 8),
    ...(next.isLine === true ? [tableHeading(x, width)] : []),
  ];
  const pages = paginate(blocks, size.height - MARGIN - FOOTER, continuation);
  pages.forEach((blocksOfPage, i) => {
    const page = doc.addPage(size.width, size.height);
    drawBlocks(page, blocksOfPage, MARGIN);
    footer(page, f, i + 1, pages.length, x, width);
  });
}
