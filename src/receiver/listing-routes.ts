import { parseCalendarDate } from '../documents/dates.ts';
import { ECF_TIPOS } from '../documents/validation/ecf-types.ts';
import { AppError } from '../errors.ts';
import { S, envelope } from '../http/openapi.ts';
import { tenantOf, uuidParam } from '../http/params.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import type { RequestContext, Route } from '../http/types.ts';
import type { ReceivedDocuments } from './received-documents.ts';

// The tenant's own view of the e-CF its receiver accepted. These are ordinary API routes
// (the tenant's credentials, the default rate scope), not part of the /fe/* group.

const TAGS = ['Receptor'];
const XML_CONTENT = 'application/xml; charset=utf-8';
const PATH = '/{env}/documentos-recibidos';

function envOf(ctx: RequestContext) {
  if (ctx.env === null) throw new AppError('NOT_FOUND');
  return ctx.env;
}

export function receivedDocumentRoutes(received: ReceivedDocuments): Route[] {
  const xmlRoute = (which: 'ecf' | 'arecf', suffix: string, operationId: string, summary: string): Route => ({
    method: 'GET', path: `${PATH}/{id}/${suffix}`, auth: 'apiKeyOrBearer',
    doc: { operationId, tags: TAGS, summary, responses: { '200': { description: 'Signed XML.', contentType: 'application/xml', schema: S.string() } } },
    handler: async (ctx) => ({
      status: 200,
      raw: { data: await received.xml(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'), which), contentType: XML_CONTENT },
    }),
  });
  return [
    {
      method: 'GET', path: PATH, auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listReceivedDocuments', tags: TAGS, summary: 'e-CF received from other taxpayers, newest first',
        query: {
          rncEmisor: { description: 'Only from this emisor.', schema: S.string({ pattern: '^(\\d{9}|\\d{11})$' }) },
          tipo: { description: 'Only this e-CF type.', schema: S.int({ enum: [...ECF_TIPOS] }) },
          encf: { description: 'Exactly this eNCF.', schema: S.string({ pattern: '^E\\d{12}$' }) },
          desde: { description: 'Issue date from (inclusive), dd-MM-yyyy or yyyy-MM-dd.', schema: S.string() },
          hasta: { description: 'Issue date to (inclusive), dd-MM-yyyy or yyyy-MM-dd.', schema: S.string() },
          pageSize: { description: 'Items per page, 1–500 (default 50).', schema: S.int({ minimum: 1, maximum: 500, default: 50 }) },
          cursor: { description: 'nextCursor of the previous page.', schema: S.string() },
        },
        responses: {
          '200': { description: 'A page.', schema: envelope(S.object({ items: S.array(S.ref('ReceivedDocumentSummary')), nextCursor: S.nullable(S.string()) })) },
          '422': { description: 'VALIDATION_ERROR: a filter value or parameter is not valid.', schema: S.ref('ErrorEnvelope') },
        },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const rncEmisor = q.string('rncEmisor', { pattern: /^(\d{9}|\d{11})$/, message: 'must be an RNC (9 digits) or cédula (11 digits)' });
        const tipo = q.oneOf('tipo', ECF_TIPOS);
        const encf = q.string('encf', { pattern: /^E\d{12}$/, message: 'must be E followed by 12 digits' });
        const [desde, hasta] = (['desde', 'hasta'] as const).map((name) => {
          const v = q.string(name);
          const parsed = v === undefined ? undefined : parseCalendarDate(v);
          if (parsed === null) q.errors.push({ path: `query.${name}`, message: 'must be a date as dd-MM-yyyy or yyyy-MM-dd' });
          return parsed ?? undefined;
        });
        const pageSize = q.int('pageSize', 50, 1, 500);
        const after = q.cursor('cursor');
        q.done();
        return ok(await received.list({ tenantId: tenantOf(ctx), environment: envOf(ctx), rncEmisor, tipo, encf, desde, hasta, after, pageSize }));
      },
    },
    {
      method: 'GET', path: `${PATH}/{id}`, auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getReceivedDocument', tags: TAGS, summary: 'A received e-CF with its content as JSON',
        responses: { '200': { description: 'The document.', schema: envelope(S.ref('ReceivedDocumentDetail')) } },
      },
      handler: async (ctx) => ok(await received.get(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'))),
    },
    xmlRoute('ecf', 'xml', 'getReceivedDocumentXml', 'The received e-CF, signed, exactly as the sender uploaded it'),
    xmlRoute('arecf', 'arecf', 'getReceivedDocumentArecf', 'The signed ARECF (Estado 0) this receiver answered it with'),
  ];
}
