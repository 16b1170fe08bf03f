// The printed e-CF on an 80 mm receipt roll: one narrow column, as long as the content needs.
// A page is as tall as its blocks; only past PDF's 200-inch page limit does a receipt go on to
// a second page. DGII's model for continuous paper (2.3) keeps its own arrangement: the QR code
// centred at the end (the exception of the Informe Técnico's note 18), the security code and
// signature date below it, then DGII's legend.
import { MAX_PAGE_SIDE, PdfDocument, ROLL_80MM_WIDTH, type PdfPage } from '../../lib/pdf/index.ts';
import { PRINTED_LEGEND, type PrintedLine, type PrintFacts } from './facts.ts';
import { type Block, drawBlocks, fitText, gap, heightOf, logoBlock, markBanner, paginate, paragraph, placeQr, rule, type Style } from './flow.ts';

const MARGIN = 10;
const FOOTER = 14;
const BODY: Style = { font: 'Helvetica', size: 7.5 };
const BOLD: Style = { font: 'Helvetica-Bold', size: 7.5 };
const LEADING = 9.5;
/** Larger than on a sheet: thermal printers have coarse dots. */
export const TICKET_QR_SIDE = 130;

function row(left: string, right: string, x: number, width: number, style: Style = BODY, leading = LEADING): Block {
  return {
    height: leading,
    draw(page, top) {
      const y = top + leading * 0.75;
      fitText(page, x, y, left, style, width * 0.55);
      fitText(page, x + width, y, right, style, width * 0.43, 'right');
    },
  };
}

function lineBlocks(line: PrintedLine, x: number, width: number): Block[] {
  const parts = [
    paragraph(line.name, BOLD, width, LEADING, x),
    paragraph(line.description, { font: 'Helvetica', size: 6.5 }, width, 8, x),
    row(`${line.quantity}${line.unit === '' ? '' : ` ${line.unit}`} x ${line.unitPrice}  ITBIS ${line.tax}`, line.amount, x, width),
    ...(line.discount === '' ? [] : [row('Descuento', line.discount, x, width)]),
    ...(line.surcharge === '' ? [] : [row('Recargo', line.surcharge, x, width)]),
    gap(2),
  ];
  return [{ height: heightOf(parts), isLine: true, draw: (page, top) => drawBlocks(page, parts, top) }];
}

export function renderTicket(f: PrintFacts, doc: PdfDocument): void {
  const x = MARGIN;
  const width = ROLL_80MM_WIDTH - 2 * MARGIN;
  const center = (str: string, style: Style, leading = LEADING): Block => paragraph(str, style, width, leading, x, 'center');
  const facts = (title: string, list: readonly (readonly [string, string])[]): Block[] =>
    list.length === 0 ? [] : [center(title, BOLD), ...list.map(([label, value]) => paragraph(`${label}: ${value}`, BODY, width, LEADING, x)), gap(3)];
  const qr = placeQr(f.signature.timbreUrl, TICKET_QR_SIDE);
  const box = qr.side + 2 * qr.quiet;

  const blocks: Block[] = [
    ...markBanner(f.marks, x, width, 10),
    ...logoBlock(f.logo, x, width, width * 0.7, 56, 'center', 4),
    center(f.issuer.name, { font: 'Helvetica-Bold', size: 9 }, 11),
    center(`RNC: ${f.issuer.rnc}`, BODY),
    ...f.issuer.details.map((d) => center(d, { font: 'Helvetica', size: 7 }, 9)),
    rule(x, width, 8),
    center(f.typeName, { font: 'Helvetica-Bold', size: 8.5 }, 11),
    center(`e-NCF: ${f.encf}`, { font: 'Helvetica-Bold', size: 8.5 }, 11),
    ...[['Fecha de emisión', f.issueDate], ['Vencimiento de la secuencia', f.expiry]].filter(([, v]) => v !== '')
      .map(([label, value]) => paragraph(`${label}: ${value}`, BODY, width, LEADING, x)),
    gap(3),
    ...facts('Comprador', f.buyer),
    ...facts('Comprobante modificado', f.reference),
    ...facts('Condiciones de pago', f.payment),
    rule(x, width, 6),
    row('Descripción', 'Monto', x, width, BOLD),
    rule(x, width, 4),
    ...f.lines.flatMap((line) => lineBlocks(line, x, width)),
    ...f.adjustments.map(([label, value]) => row(label, value, x, width)),
    rule(x, width, 6),
    ...f.totals.map((t) => (t.strong ? row(t.label, t.value, x, width, { font: 'Helvetica-Bold', size: 9 }, 12) : row(t.label, t.value, x, width))),
    gap(4),
    { height: box, draw: (page: PdfPage, top: number) => qr.draw(page, x + (width - box) / 2, top) },
    center(`Código de seguridad: ${f.signature.securityCode}`, BOLD),
    center(`Fecha de firma digital: ${f.signature.fechaHoraFirma}`, BODY),
    gap(3),
    center(PRINTED_LEGEND, BOLD),
  ];
  const pages = paginate(blocks, MAX_PAGE_SIDE - 2 * MARGIN - FOOTER, () => [...markBanner(f.marks, x, width, 10), center(`${f.typeName} ${f.encf} (continuación)`, BOLD), rule(x, width, 6)]);
  pages.forEach((blocksOfPage, i) => {
    const page = doc.addPage(ROLL_80MM_WIDTH, Math.ceil(heightOf(blocksOfPage) + 2 * MARGIN + FOOTER));
    drawBlocks(page, blocksOfPage, MARGIN);
    page.text(x + width / 2, page.height - MARGIN, `Página ${i + 1} de ${pages.length}`, { font: 'Helvetica', size: 6.5, align: 'center' });
  });
}
