import type { Environment } from '../environments.ts';
import type { ZipEntry } from '../lib/zip/index.ts';
import type { ExportRow } from './report-queries.ts';
import { isoToDgiiDate } from './views.ts';

// The accountant's export: one CSV row per document, or the signed XMLs as ZIP entries.
// The CSV is UTF-8 with a BOM (Excel reads accents right only with it), comma-separated,
// CRLF line ends (RFC 4180).

export const EXPORT_FORMATS = ['csv', 'zip'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const BOM = '\uFEFF';
const HEADER = ['eNCF', 'Tipo', 'FechaEmision', 'RNCComprador', 'RazonSocialComprador', 'MontoTotal', 'TotalITBIS', 'Estado', 'CodigoSeguridad', 'Referencia'];

/**
 * What a text cell must not start with: = + - @ (and their full-width forms ＝ ＋ － ＠, which
 * some spreadsheets read as the ASCII ones), or any whitespace (space, tab, CR, LF, NBSP and
 * the other Unicode spaces) that a spreadsheet trims before finding a formula behind it.
 */
const FORMULA_START = /^[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\s]/u;

/**
 * One CSV cell. Text that a spreadsheet could run as a formula (FORMULA_START) gets a leading
 * apostrophe (OWASP's advice): a buyer's name is written by whoever issued the invoice, not by
 * the reader of the export.
 */
export function csvCell(value: string | number | null | undefined, numeric = false): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (!numeric && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(cells: readonly string[]): string {
  return `${cells.join(',')}\r\n`;
}

/** The CSV text, a batch of rows per chunk; the first chunk carries the BOM and the header. */
export async function* csvChunks(batches: AsyncIterable<ExportRow[]>): AsyncGenerator<string> {
  yield BOM + csvLine(HEADER.map((h) => csvCell(h)));
  for await (const batch of batches) {
    yield batch.map((r) => csvLine([
      csvCell(r.encf),
      csvCell(r.tipo, true),
      csvCell(isoToDgiiDate(r.fechaEmision)),
      csvCell(r.rncComprador),
      csvCell(r.razonSocialComprador),
      csvCell(r.montoTotal, true),
      csvCell(r.totalItbis, /^\d+(\.\d+)?$/.test(r.totalItbis ?? '')),
      csvCell(r.estado),
      csvCell(r.securityCode),
      csvCell(r.referencia),
    ])).join('');
  }
}

/**
 * Each signed document as {RNCEmisor}{eNCF}.xml, the name DGII's tools give it, and beside it
 * what DGII asks taxpayers to keep with it: the RFCE sent for it (-RFCE.xml), the buyer's ARECF
 * (-ARECF.xml) and commercial approval (-ACECF.xml), byte for byte as signed.
 */
export async function* xmlEntries(batches: AsyncIterable<ExportRow[]>): AsyncGenerator<ZipEntry> {
  for await (const batch of batches) {
    for (const r of batch) {
      if (typeof r.signedXml !== 'string') continue;
      const base = `${r.rncEmisor}${r.encf}`;
      yield { name: `${base}.xml`, data: r.signedXml, modified: r.updatedAt };
      for (const [suffix, xml] of [['RFCE', r.rfceXml], ['ARECF', r.arecfXml], ['ACECF', r.acecfXml]] as const) {
        if (typeof xml === 'string') yield { name: `${base}-${suffix}.xml`, data: xml, modified: r.updatedAt };
      }
    }
  }
}

/** documentos-TesteCF-2025-06-01.csv: the environment and the day of the export. */
export function exportFilename(environment: Environment, format: ExportFormat, now = new Date()): string {
  return `documentos-${environment}-${now.toISOString().slice(0, 10)}.${format}`;
}
