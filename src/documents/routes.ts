import { AppError } from '../errors.ts';
import type { IdempotencyStore } from '../idempotency/idempotent.ts';
import { S, envelope } from '../http/openapi.ts';
import { tenantOf, uuidParam } from '../http/params.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import type { RequestContext, Route } from '../http/types.ts';
import { parseCalendarDate } from './dates.ts';
import type { DocumentService } from './service.ts';
import { ESTADO_NAMES } from './states.ts';
import { ECF_TIPOS } from './validation/ecf-types.ts';

export interface DocumentRouteDeps {
  documents: DocumentService;
  idempotency: IdempotencyStore;
}

function envOf(ctx: RequestContext) {
  if (ctx.env === null) throw new AppError('NOT_FOUND');
  return ctx.env;
}

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });

export function documentRoutes(deps: DocumentRouteDeps): Route[] {
  const { documents, idempotency } = deps;
  return [
    {
      method: 'POST', path: '/{env}/documentos-ecf', auth: 'apiKeyOrBearer', rateScope: 'emit', body: 'json',
      doc: {
        operationId: 'emitDocument', tags: ['Documents'], summary: 'Emit an e-CF',
        description: 'Validates the document, assigns its eNCF when omitted, stores it as `recibido` and submits it to the tax authority in the background; follow it with GET or the ecf.status_update webhook. With an Idempotency-Key (1–255 printable ASCII characters) a retry with the same body within 24 h gets the original answer with Idempotent-Replayed: true.',
        headers: { 'Idempotency-Key': { description: 'Makes retries safe; scoped per tenant and environment.', schema: S.string({ minLength: 1, maxLength: 255 }) } },
        requestBody: { schema: S.ref('EcfBody') },
        responses: {
          '202': { description: 'Accepted for submission.', schema: envelope(S.ref('EmittedDocument')), headers: { Location: { description: 'The document.', schema: S.string() }, 'Idempotent-Replayed': { description: '"true" on a replayed answer.', schema: S.string() } } },
          '400': ERR('INVALID_JSON, or VALIDATION_ERROR for a malformed Idempotency-Key.'),
          '409': ERR('ENCF_ALREADY_USED, IDEMPOTENCY_KEY_CONFLICT, or IDEMPOTENCY_KEY_IN_USE (with Retry-After).'),
          '422': ERR('VALIDATION_ERROR listing every problem of the document.'),
        },
      },
      handler: idempotency.wrap(async (ctx, claim) => {
        const env = envOf(ctx);
        const location = (id: string) => `/${env}/documentos-ecf/${id}`;
        const { view } = await documents.emit(tenantOf(ctx), env, ctx.body, async (tx, v) => {
          await claim?.storeIn(tx, { status: 202, body: { success: true, data: v }, headers: { location: location(v.internalTrackId) } });
        });
        return { status: 202, body: { success: true, data: view }, headers: { location: location(view.internalTrackId) } };
      }),
    },
    {
      method: 'GET', path: '/{env}/documentos-ecf', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listDocuments', tags: ['Documents'], summary: 'List documents, newest first',
        query: {
          estado: { description: 'Only documents in this state.', schema: S.string({ enum: ESTADO_NAMES }) },
          tipo: { description: 'Only this e-CF type.', schema: S.int({ enum: [...ECF_TIPOS] }) },
          encf: { description: 'Exactly this eNCF.', schema: S.string({ pattern: '^E\\d{12}$' }) },
          desde: { description: 'Issue date from (inclusive), dd-MM-yyyy or yyyy-MM-dd.', schema: S.string() },
          hasta: { description: 'Issue date to (inclusive), dd-MM-yyyy or yyyy-MM-dd.', schema: S.string() },
          pageSize: { description: 'Items per page, 1–500 (default 50).', schema: S.int({ minimum: 1, maximum: 500, default: 50 }) },
          cursor: { description: 'nextCursor of the previous page.', schema: S.string() },
        },
        responses: {
          '200': { description: 'A page.', schema: envelope(S.object({ items: S.array(S.ref('DocumentSummary')), nextCursor: S.nullable(S.string()) })) },
          '422': ERR('VALIDATION_ERROR: a filter value or parameter is not valid.'),
        },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const estado = q.oneOf('estado', ESTADO_NAMES);
        const tipo = q.oneOf('tipo', ECF_TIPOS);
        const encf = q.string('encf', { pattern: /^E\d{12}$/, message: 'must be E followed by 12 digits' });
        const dates = (['desde', 'hasta'] as const).map((name) => {
          const v = q.string(name);
          const parsed = v === undefined ? undefined : parseCalendarDate(v);
          if (parsed === null) q.errors.push({ path: `query.${name}`, message: 'must be a date as dd-MM-yyyy or yyyy-MM-dd' });
          return parsed ?? undefined;
        });
        const pageSize = q.int('pageSize', 50, 1, 500);
        const after = q.cursor('cursor');
        q.done();
        return ok(await documents.list({ tenantId: tenantOf(ctx), environment: envOf(ctx), estado, tipo, encf, desde: dates[0], hasta: dates[1], after, pageSize }));
      },
    },
    {
      method: 'GET', path: '/{env}/documentos-ecf/{internalTrackId}', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getDocument', tags: ['Documents'], summary: 'A document with its state history',
        responses: { '200': { description: 'The document.', schema: envelope(S.ref('DocumentDetail')) } },
      },
      handler: async (ctx) => ok(await documents.get(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId'))),
    },
    {
      method: 'GET', path: '/{env}/documentos-ecf/{internalTrackId}/xml', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getDocumentXml', tags: ['Documents'], summary: 'The signed e-CF XML',
        description: 'The XML exactly as signed and sent to DGII (enveloped XMLDSig, RSA-SHA256). For a type 32 sent as RFCE this is the full e-CF the summary refers to. The document is signed right before its first submission; until then this is 404.',
        responses: {
          '200': { description: 'The signed XML (UTF-8).', contentType: 'application/xml', schema: S.string() },
          '404': ERR('NOT_FOUND: no such document for this tenant and environment, or not signed yet.'),
        },
      },
      handler: async (ctx) => ({
        status: 200,
        raw: { data: await documents.signedXml(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId')), contentType: 'application/xml; charset=utf-8' },
      }),
    },
  ];
}
