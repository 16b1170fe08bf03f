// The printed e-CF on a sheet (Letter or A4), in the order of DGII's Informe Técnico e-CF v1.0,
// section 17.2: the issuer and its issue date at the upper left, the document's identity (type,
// e-NCF, expiry, and for a note the modified NCF, its date and the modification code) in a box at
// the upper right, the buyer, the payment terms, the lines in a table that continues on further
// pages, and at the foot of the last page the QR code at the lower left, at least 2 cm from the
// page's edges, with the security code and signature date below it, beside the totals.
import { mm, PdfDocument, type PageSize, type PdfPage } from '../../lib/pdf/index.ts';
import { PRINTED_LEGEND, type PrintedLine, type PrintFacts } from './facts.ts';
import { type Block, drawBlocks, fitText, gap, heightOf, logoBlock, markBanner, paginate, paragraph, placeQr, rule, type Style } from './flow.ts';

const MARGIN = 36;
const FOOTER = 30;
const BODY: Style = { font: 'Helvetica', size: 8.5 };
const BOLD: Style = { font: 'Helvetica-Bold', size: 8.5 };
const SMALL: Style = { font: 'Helvetica', size: 7.5 };
const LEADING = 11;
/** The QR symbol's side: DGII asks for at least 22 mm (62.4 pt); more scans easier from paper. */
export const SHEET_QR_SIDE = 96;
/** DGII: at least 2 cm from the sheet's edges to where the QR code starts (its clear margin included). */
export const SHEET_QR_MIN_EDGE_DISTANCE = mm(20);

// Table columns, measured from the right edge of the content: [right edge offset, width].
const COLUMNS = {
  amount: [0, 80], tax: [86, 36], discount: [128, 62], price: [196, 76],
} as const;
const QUANTITY_WIDTH = 44;
const UNIT_LEFT = QUANTITY_WIDTH + 4;
const UNIT_WIDTH = 40;
const DESCRIPTION_LEFT = UNIT_LEFT + UNIT_WIDTH + 4;
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
    ...logoBlock(f.logo, x, leftWidth, Math.min(170, leftWidth), 64, 'left', 6),
    paragraph(f.issuer.name, { font: 'Helvetica-Bold', size: 12 }, leftWidth, 15, x),
    paragraph(`RNC: ${f.issuer.rnc}`, BOLD, leftWidth, LEADING, x),
    ...f.issuer.details.map((d) => paragraph(d, BODY, leftWidth, LEADING, x)),
    paragraph(f.issueDate === '' ? '' : `Fecha de emisión: ${f.issueDate}`, BOLD, leftWidth, LEADING, x),
  ]);
  const pad = 6;
  // The reason of a note may be long: it goes under the header, the rest of the reference here.
  const modified = f.reference.filter(([label]) => label !== 'Razón');
  const right = stack([
    gap(pad),
    paragraph(f.typeName, { font: 'Helvetica-Bold', size: 10.5 }, rightWidth - 2 * pad, 13, rx + pad),
    paragraph(`e-NCF: ${f.encf}`, { font: 'Helvetica-Bold', size: 10.5 }, rightWidth - 2 * pad, 14, rx + pad),
    paragraph(f.expiry === '' ? '' : `Vencimiento de la secuencia: ${f.expiry}`, BODY, rightWidth - 2 * pad, LEADING, rx + pad),
    ...modified.map((d) => paragraph(labelled(d), BODY, rightWidth - 2 * pad, LEADING, rx + pad)),
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
      fitText(page, x + UNIT_LEFT, y, 'UM', BOLD, UNIT_WIDTH);
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
  const surcharge = paragraph(line.surcharge === '' ? '' : `Recargo: ${line.surcharge}`, SMALL, descWidth, 9.5, x + DESCRIPTION_LEFT);
  const height = Math.max(name.height + description.height + surcharge.height, LEADING) + 4;
  return {
    height,
    isLine: true,
    draw(page, top) {
      const y = top + LEADING * 0.75;
      const right = x + width;
      fitText(page, x + 3, y, line.quantity, BODY, QUANTITY_WIDTH - 3);
      fitText(page, x + UNIT_LEFT, y, line.unit, BODY, UNIT_WIDTH);
      name.draw(page, top);
      description.draw(page, top + name.height);
      surcharge.draw(page, top + name.height + description.height);
      fitText(page, right - COLUMNS.price[0] - 3, y, line.unitPrice, BODY, COLUMNS.price[1], 'right');
      fitText(page, right - COLUMNS.discount[0] - 3, y, line.discount, BODY, COLUMNS.discount[1], 'right');
      fitText(page, right - COLUMNS.tax[0] - 3, y, line.tax, BODY, COLUMNS.tax[1], 'right');
      fitText(page, right - COLUMNS.amount[0] - 3, y, line.amount, BODY, COLUMNS.amount[1], 'right');
      page.line(x, top + height - 1, right, top + height - 1, 0.25);
    },
  };
}

/**
 * The foot of the last page: the totals on the right; on the left the QR code, its clear margin
 * starting 2 cm from the sheet's left edge, with the security code and the signature's date and
 * time below it; DGII's legend under both.
 */
function closing(f: PrintFacts, x: number, width: number): Block {
  const totalsWidth = 230;
  const rows = f.totals.map((t) => ({ ...t, leading: t.strong ? 15 : 12 }));
  const totalsHeight = rows.reduce((sum, r) => sum + r.leading, 0);
  const qr = placeQr(f.signature.timbreUrl, SHEET_QR_SIDE);
  const box = qr.side + 2 * qr.quiet;
  const qrX = Math.max(x, SHEET_QR_MIN_EDGE_DISTANCE);
  const textX = qrX + qr.quiet;
  const textWidth = width - totalsWidth - (textX - x) - 12;
  const below = stack([
    paragraph(`Código de seguridad: ${f.signature.securityCode}`, { font: 'Helvetica-Bold', size: 9.5 }, textWidth, 13, textX),
    paragraph(`Fecha de firma digital: ${f.signature.fechaHoraFirma}`, { font: 'Helvetica', size: 9 }, textWidth, 12, textX),
  ]);
  const legend = paragraph(PRINTED_LEGEND, BOLD, width, LEADING, x, 'center');
  const left = box + below.height;
  const body = Math.max(totalsHeight + 8, left);
  return {
    height: body + 6 + legend.height,
    draw(page, top) {
      let y = top + 8;
      const rx = x + width - totalsWidth;
      for (const r of rows) {
        y += r.leading;
        const style: Style = r.strong ? { font: 'Helvetica-Bold', size: 10 } : BODY;
        fitText(page, rx, y - 3, r.label, style, totalsWidth - 110);
        fitText(page, x + width - 3, y - 3, r.value, style, 105, 'right');
      }
      qr.draw(page, qrX, top);
      below.draw(page, top + box);
      legend.draw(page, top + body + 6);
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
  const reason = f.reference.filter(([label]) => label === 'Razón');
  const end = closing(f, x, width);
  const blocks: Block[] = [
    ...markBanner(f.marks, x, width, 20),
    header(f, x, width),
    ...section('Comprador', f.buyer, x, width),
    ...section('Modificación', reason, x, width),
    ...section('Condiciones de pago', f.payment, x, width),
    tableHeading(x, width),
    ...f.lines.map((line) => lineBlock(line, x, width)),
    gap(6),
    ...section('Descuentos y recargos', f.adjustments, x, width),
    end,
  ];
  const continuation = (next: Block): Block[] => [
    ...markBanner(f.marks, x, width, 20),
    paragraph(`${f.issuer.name} - RNC ${f.issuer.rnc} - ${f.typeName} ${f.encf} (continuación)`, BOLD, width, 13, x),
    rule(x, width, 8),
    ...(next.isLine === true ? [tableHeading(x, width)] : []),
  ];
  const bottom = size.height - MARGIN - FOOTER;
  const pages = paginate(blocks, bottom - MARGIN, continuation);
  pages.forEach((blocksOfPage, i) => {
    const page = doc.addPage(size.width, size.height);
    // The closing block sits at the foot of the last page: DGII puts the QR code at the lower left.
    const last = i === pages.length - 1;
    drawBlocks(page, last ? blocksOfPage.slice(0, -1) : blocksOfPage, MARGIN);
    if (last) end.draw(page, bottom - end.height);
    footer(page, f, i + 1, pages.length, x, width);
  });
}
