import type { Sql } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { AppError, notFound } from '../errors.ts';
import { encodeQr, qrToSvg } from '../lib/qr/index.ts';
import { zipStream } from '../lib/zip/index.ts';
import { csvChunks, xmlEntries, type ExportFormat } from './export.ts';
import type { ListFilterValues } from './list-filter.ts';
import { findDocument } from './queries.ts';
import { exportDocuments } from './report-queries.ts';
import { dominicanToday, readStatistics, statisticsRange, type DeliveryTrouble, type Statistics } from './statistics.ts';

// What the dashboard reads beyond the documents themselves: exports, the overview and the
// timbre's QR code. Knows nothing of HTTP.

/** Rows per query of an export: memory stays at one batch of XMLs (about 1.2 MB of them). */
const EXPORT_BATCH = 200;

export class DocumentReports {
  private readonly sql: Sql;
  /** The webhook feature's count of failing and abandoned deliveries, handed down by app.ts. */
  private readonly deliveries: (tenantId: number, since: string) => Promise<DeliveryTrouble>;

  constructor(sql: Sql, deliveries: (tenantId: number, since: string) => Promise<DeliveryTrouble>) {
    this.sql = sql;
    this.deliveries = deliveries;
  }

  /** The filtered list as CSV text, or a ZIP of the signed XMLs, produced as it is read. */
  export(tenantId: number, environment: Environment, filter: ListFilterValues, format: ExportFormat): AsyncIterable<Buffer | string> {
    const rows = exportDocuments(this.sql, { tenantId, environment, ...filter }, format === 'zip', EXPORT_BATCH);
    return format === 'csv' ? csvChunks(rows) : zipStream(xmlEntries(rows));
  }

  statistics(tenantId: number, environment: Environment, desde: string | undefined, hasta: string | undefined): Promise<Statistics> {
    const today = dominicanToday();
    return readStatistics(this.sql, tenantId, environment, statisticsRange(desde, hasta, today), today, this.deliveries);
  }

  /** The timbre URL as a QR code in SVG; 409 DOCUMENT_NOT_SIGNED until the signature gives it. */
  async timbreQr(tenantId: number, environment: Environment, id: string): Promise<string> {
    const row = await findDocument(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Document');
    if (row.timbreUrl === null) throw new AppError('DOCUMENT_NOT_SIGNED', 'This document is not signed yet, so it has no timbre: it is signed right before its first submission to DGII');
    return qrToSvg(encodeQr(row.timbreUrl, { ecc: 'M' }), { title: `Timbre ${row.encf}` });
  }
}
