import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { DATE_BOUNDS, DATE_PATTERN } from '../http/paging.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import { EXPORT_FORMATS, exportFilename } from './export.ts';
import { LIST_FILTER_DOCS, readListFilter } from './list-filter.ts';
import type { DocumentReports } from './reports.ts';
import { MAX_RANGE_DAYS } from './statistics.ts';

// The dashboard's reading routes: export of the filtered list, the overview, the timbre QR.
// Ordinary API routes: an ERP may use them as well.

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });

export function documentReportRoutes(reports: DocumentReports): Route[] {
  return [
    {
      method: 'GET', path: '/{env}/documentos-ecf/export', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'exportDocuments', tags: ['Documents'], summary: 'Export the filtered documents as CSV or a ZIP of signed XMLs',
        description: 'Takes the filters of the list (not its paging) and streams every matching document, newest first, read from the database 200 at a time as the client takes them (keyset pages, no connection held in between): memory stays constant whatever the count. `format=csv`: UTF-8 with a BOM (so Excel shows accents), comma-separated, CRLF; one row per document with eNCF, Tipo, FechaEmision (dd-MM-yyyy), RNCComprador, RazonSocialComprador, MontoTotal, TotalITBIS, Estado, CodigoSeguridad, Referencia. A text cell starting with = + - @, their full-width forms ＝ ＋ － ＠, or any whitespace (tab, CR, LF, NBSP, …) is prefixed with an apostrophe so that a spreadsheet never runs it as a formula. `format=zip`: the signed XML of every matching signed document, named {RNCEmisor}{eNCF}.xml (ZIP64 beyond 65,535 entries or 4 GiB). An error after the first byte cuts the connection (the answer is chunked, so the cut is visible).',
        query: { format: { description: 'csv or zip.', schema: S.string({ enum: [...EXPORT_FORMATS] }) }, ...LIST_FILTER_DOCS },
        responses: {
          '200': {
            description: 'The export, as an attachment named documentos-{env}-{yyyy-MM-dd}.csv or .zip.',
            contentType: 'text/csv', schema: S.string(),
            headers: { 'Content-Disposition': { description: 'attachment; filename="documentos-{env}-{yyyy-MM-dd}.{format}"', schema: S.string() } },
          },
          '422': ERR('VALIDATION_ERROR: format is missing or unknown, or a filter is not valid.'),
        },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const format = q.oneOf('format', EXPORT_FORMATS);
        if (format === undefined && !q.errors.some((e) => e.path === 'query.format')) q.errors.push({ path: 'query.format', message: 'is required: csv or zip' });
        const filter = readListFilter(q);
        q.done();
        const fmt = format ?? 'csv';
        const env = envOf(ctx);
        return {
          status: 200,
          stream: { source: reports.export(tenantOf(ctx), env, filter, fmt), contentType: fmt === 'csv' ? 'text/csv; charset=utf-8' : 'application/zip' },
          headers: { 'content-disposition': `attachment; filename="${exportFilename(env, fmt)}"` },
        };
      },
    },
    {
      method: 'GET', path: '/{env}/estadisticas', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getStatistics', tags: ['Documents'], summary: 'Counts by estado for today, this month and a range; documents per day; troubled deliveries',
        description: `By issue date (FechaEmision) in Dominican time. The range defaults to the last 30 days up to today and may cover at most ${MAX_RANGE_DAYS} days. acceptanceRate is (aceptado + aceptado_condicional) over the documents with a verdict (those plus rechazado), null when none has one. deliveries counts the tenant's webhook deliveries across environments: failing (pending after a failed attempt, being retried) and abandoned (created since desde, given up after every retry).`,
        query: {
          desde: { description: `First issue date of the range (inclusive), dd-MM-yyyy or yyyy-MM-dd, ${DATE_BOUNDS}.`, schema: S.string({ pattern: DATE_PATTERN }) },
          hasta: { description: `Last issue date of the range (inclusive); today by default; ${DATE_BOUNDS}.`, schema: S.string({ pattern: DATE_PATTERN }) },
        },
        responses: {
          '200': { description: 'The overview.', schema: envelope(S.ref('Statistics')) },
          '422': ERR('VALIDATION_ERROR: a date is not valid, desde is after hasta, or the range is too long.'),
        },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const desde = q.date('desde');
        const hasta = q.date('hasta');
        q.done();
        return ok(await reports.statistics(tenantOf(ctx), envOf(ctx), desde, hasta));
      },
    },
    {
      method: 'GET', path: '/{env}/documentos-ecf/{internalTrackId}/qr.svg', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getDocumentTimbreQr', tags: ['Documents'], summary: 'The timbre QR code as SVG',
        description: 'The QR code of timbreUrl (error correction M, a 4-module quiet zone) as a scalable SVG image, the same code the printed representation carries. Available once the document is signed.',
        responses: {
          '200': { description: 'The SVG image.', contentType: 'image/svg+xml', schema: S.string() },
          '404': ERR('NOT_FOUND: no such document for this tenant and environment.'),
          '409': ERR('DOCUMENT_NOT_SIGNED: the document is not signed yet, or ended in error before it was.'),
        },
      },
      handler: async (ctx) => ({
        status: 200,
        raw: { data: await reports.timbreQr(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId')), contentType: 'image/svg+xml; charset=utf-8' },
        headers: { 'cache-control': 'private, no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
      }),
    },
  ];
}
