// The printed representation of an e-CF (DGII's "representación impresa") as a PDF, for paper,
// email and receipt printers. Built from the stored e-CF and its signature's facts only, so
// issued and received documents print alike.
import { A4, LETTER, PdfDocument, type PdfImage } from '../../lib/pdf/index.ts';
import type { EcfObject } from '../types.ts';
import { printFacts, type PrintLogo, type PrintMark, type PrintSignature } from './facts.ts';
import { renderSheet } from './sheet.ts';
import { renderTicket } from './ticket.ts';

export type { PrintMark, PrintSignature } from './facts.ts';
export { PRINT_MARKS, PRINTED_LEGEND } from './facts.ts';
export { formatDecimal, pesos } from './amounts.ts';
export { SHEET_QR_MIN_EDGE_DISTANCE, SHEET_QR_SIDE } from './sheet.ts';
export { TICKET_QR_SIDE } from './ticket.ts';

/** The `formato` values: Letter and A4 sheets, and an 80 mm thermal receipt roll. */
import { RenderPool } from './render-pool.ts';

export const PRINT_FORMATS = ['carta', 'a4', 'ticket80'] as const;
export type PrintFormat = (typeof PRINT_FORMATS)[number];
export const DEFAULT_PRINT_FORMAT: PrintFormat = 'carta';

export function isPrintFormat(value: string): value is PrintFormat {
  return (PRINT_FORMATS as readonly string[]).includes(value);
}

export interface PrintInput {
  readonly tipo: number;
  /** The e-CF's content, as stored (the normalised JSON form of its XML). */
  readonly ecf: EcfObject;
  readonly signature: PrintSignature;
  /** Marks of a document without fiscal value (rejected by DGII, or of a test environment). */
  readonly marks?: readonly PrintMark[];
  /** The issuer's logo (lib/pdf readImage, done when it was uploaded), drawn at the top of every format. */
  readonly logo?: PdfImage | null;
}

/**
 * The marks a document's printout carries: PRUEBA outside DGII's production environment (`eCF`),
 * RECHAZADO when DGII rejected it. Either means the paper has no fiscal value.
 */
export function printMarks(environment: string, rejected: boolean): PrintMark[] {
  const marks: PrintMark[] = [];
  if (rejected) marks.push('rechazado');
  if (environment !== 'eCF') marks.push('prueba');
  return marks;
}

/** The PDF file of the document. The same input always gives the same bytes. */
export function renderEcfPdf(input: PrintInput, format: PrintFormat = DEFAULT_PRINT_FORMAT): Buffer {
  const doc = new PdfDocument();
  const facts = { ...printFacts(input.tipo, input.ecf, input.signature, input.marks), logo: addLogo(doc, input.logo) };
  if (format === 'ticket80') renderTicket(facts, doc);
  else renderSheet(facts, format === 'a4' ? A4 : LETTER, doc);
  return doc.toBuffer({ title: `${facts.typeName} ${facts.encf}`, author: facts.issuer.name });
}

/** The logo added to the document, once however many pages draw it. */
function addLogo(doc: PdfDocument, image: PdfImage | null | undefined): PrintLogo | null {
  if (image === null || image === undefined) return null;
  return { name: doc.addImage(image), width: image.width, height: image.height };
}

/** A printable PDF file and the name DGII practice gives it: RNC of the issuer and eNCF. */
export interface PrintedPdf {
  readonly data: Buffer;
  readonly filename: string;
}

/** The pool every printout of this process is rendered by (threads start on first use, and end when idle). */
let sharedPool: RenderPool | null = null;
export function sharedRenderPool(): RenderPool {
  return (sharedPool ??= new RenderPool());
}

/**
 * renderEcfPdf for a stored document, on a thread of `pool` in `owner`'s turn (the tenant:
 * see render-pool.ts). The content was validated when it was stored, so the writer's
 * RangeError/TypeError means data it cannot lay out: a 422 naming why, not a 500.
 */
export async function printDocument(input: PrintInput, format: PrintFormat, rncEmisor: string, encf: string, owner: string, pool: RenderPool = sharedRenderPool()): Promise<PrintedPdf> {
  const data = await pool.render(input, format, owner);
  // Both are digits and letters once stored; anything else is dropped so the header stays valid.
  return { data, filename: `${rncEmisor}${encf}.pdf`.replace(/[^A-Za-z0-9.]/g, '') };
}
