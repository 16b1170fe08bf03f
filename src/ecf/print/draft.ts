// The preview of an e-CF before it is emitted: the printed representation laid out exactly as
// it will be, but marked on every page "BORRADOR — sin validez fiscal", with no eNCF (the
// service numbers a document only when it is emitted), no security code and no signature date;
// the QR code holds those words rather than a verification link. Nothing here signs.
import { A4, LETTER, PdfDocument } from '../../lib/pdf/index.ts';
import { AppError, errorMessage } from '../../errors.ts';
import type { EcfObject } from '../types.ts';
import { printFacts } from './facts.ts';
import { renderSheet } from './sheet.ts';

export const DRAFT_MARK = 'BORRADOR — sin validez fiscal';
export const DRAFT_FORMATS = ['carta', 'a4'] as const;
export type DraftFormat = (typeof DRAFT_FORMATS)[number];

export function renderDraftPdf(tipo: number, ecf: EcfObject, format: DraftFormat = 'carta'): Buffer {
  const facts = printFacts(tipo, ecf, { securityCode: '—', fechaHoraFirma: '—', timbreUrl: DRAFT_MARK });
  const doc = new PdfDocument();
  try {
    renderSheet({ ...facts, encf: 'BORRADOR' }, format === 'a4' ? A4 : LETTER, doc);
  } catch (err) {
    if (!(err instanceof RangeError || err instanceof TypeError)) throw err;
    throw new AppError('VALIDATION_ERROR', `This draft cannot be printed: ${errorMessage(err)}`);
  }
  // In the sheet's top and bottom margins (36 pt), where the layout draws nothing else.
  for (const page of doc.allPages()) {
    page.text(page.width / 2, 24, DRAFT_MARK, { font: 'Helvetica-Bold', size: 13, align: 'center' });
    page.text(page.width / 2, page.height - 6, DRAFT_MARK, { font: 'Helvetica-Bold', size: 9, align: 'center' });
  }
  return doc.toBuffer({ title: `${facts.typeName} (${DRAFT_MARK})`, author: facts.issuer.name });
}
