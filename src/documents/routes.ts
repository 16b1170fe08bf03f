import type { IdempotencyStore } from '../idempotency/idempotent.ts';
import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { PAGE_QUERY_DOCS, pageResponse, readPage } from '../http/paging.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import type { DocumentService } from './service.ts';
import { LIST_FILTER_DOCS, readListFilter } from './list-filter.ts';
import { pdfReply, PRINT_QUERY_DOCS, readPrintFormat } from './pdf-reply.ts';
import { batchRoutes } from './batch-routes.ts';
import { emitWarnings, envelopeWithWarnings } from './emit-warnings.ts';

export interface DocumentRouteDeps {
  documents: DocumentService;
  idempotency: IdempotencyStore;
  /** Whether the tenant has a valid signing certificate now (emit answers warn when it has not). */
  signingReady?: (tenantId: number) => Promise<boolean>;
}


const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });
const PDF_RESPONSE = { description: 'The PDF, shown inline, named {RNCEmisor}{eNCF}.pdf.', contentType: 'application/pdf', schema: S.string({ format: 'binary' }), headers: { 'Content-Disposition': { description: 'inline; filename="{RNCEmisor}{eNCF}.pdf"', schema: S.string() } } };

// An answer the emit handler produced is stored under its Idempotency-Key and replayed
// (202, 409 ENCF_ALREADY_USED, 422); IDEMPOTENCY_KEY_* answers themselves never are.
const REPLAYED = { 'Idempotent-Replayed': { description: '"true" when this is the stored answer of an earlier request with the same Idempotency-Key; absent otherwise.', schema: S.string({ enum: ['true'] }) } };
const RETRY_AFTER = { 'Retry-After': { description: 'With IDEMPOTENCY_KEY_IN_USE: seconds to wait before retrying with the same key.', schema: S.int({ minimum: 1 }) } };

export function documentRoutes(deps: DocumentRouteDeps): Route[] {
  const { documents, idempotency } = deps;
  return [
    ...batchRoutes(deps),
    {
      method: 'POST', path: '/{env}/documentos-ecf', auth: 'apiKeyOrBearer', rateScope: 'emit', body: 'json',
      doc: {
        operationId: 'emitDocument', tags: ['Documents'], summary: 'Emit an e-CF',
        description: 'Validates the document, assigns its eNCF when omitted, stores it as `recibido` and submits it to the tax authority in the background; follow it with GET or the ecf.status_update webhook. With an Idempotency-Key (1–255 printable ASCII characters) a retry with the same body within IDEMPOTENCY_TTL_HOURS (24 h by default) gets the original answer with Idempotent-Replayed: true; the same key with another body, or on another path, is 409 IDEMPOTENCY_KEY_CONFLICT.',
        headers: { 'Idempotency-Key': { description: 'Makes retries safe; scoped per tenant and environment.', schema: S.string({ minLength: 1, maxLength: 255 }) } },
        requestBody: { schema: S.ref('EcfBody') },
        responses: {
          '202': { description: 'Accepted for submission; `warnings` says when it cannot be submitted yet (no valid signing certificate).', schema: envelopeWithWarnings(S.ref('EmittedDocument')), headers: { Location: { description: 'The document.', schema: S.string() }, ...REPLAYED } },
          '400': ERR('INVALID_JSON, or VALIDATION_ERROR for a malformed Idempotency-Key.'),
          '409': {
            ...ERR('ENCF_ALREADY_USED (replayed like any stored answer); CONFLICT when the type\'s eNCF sequence is exhausted; IDEMPOTENCY_KEY_CONFLICT (the key was used with another body or path); or IDEMPOTENCY_KEY_IN_USE with Retry-After: a request with the key is still running, or this request outlasted its hold on the key and a retry took it over, in which case nothing of it was stored and retrying returns the other request\'s answer.'),
            headers: { ...RETRY_AFTER, ...REPLAYED },
          },
          '422': { ...ERR('VALIDATION_ERROR listing every problem of the document.'), headers: REPLAYED },
        },
      },
      handler: idempotency.wrap(async (ctx, claim) => {
        const env = envOf(ctx);
        const location = (id: string) => `/${env}/documentos-ecf/${id}`;
        const warnings = await emitWarnings(deps.signingReady, tenantOf(ctx));
        const answer = (v: unknown) => ({ success: true, data: v, ...(warnings.length === 0 ? {} : { warnings }) });
        const { view } = await documents.emit(tenantOf(ctx), env, ctx.body, async (tx, v) => {
          await claim?.storeIn(tx, { status: 202, body: answer(v), headers: { location: location(v.internalTrackId) } });
        });
        return { status: 202, body: answer(view), headers: { location: location(view.internalTrackId) } };
      }),
    },
    {
      method: 'GET', path: '/{env}/documentos-ecf', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listDocuments', tags: ['Documents'], summary: 'List documents, newest first',
        query: { ...LIST_FILTER_DOCS, ...PAGE_QUERY_DOCS },
        responses: {
          '200': pageResponse('DocumentSummary'),
          '422': ERR('VALIDATION_ERROR: a filter value or parameter is not valid.'),
        },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const filter = readListFilter(q);
        const { pageSize, after } = readPage(q);
        q.done();
        return ok(await documents.list({ tenantId: tenantOf(ctx), environment: envOf(ctx), ...filter, after, pageSize }));
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
      {
      method: 'GET', path: '/{env}/documentos-ecf/{internalTrackId}/pdf', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getDocumentPdf', tags: ['Documents'], summary: 'The printed representation (PDF)',
        description: 'DGII\'s printed representation of the e-CF: issuer, type and eNCF, dates, buyer, lines, totals with ITBIS, the modified NCF of a note, the security code, the signature date and time, and a QR code of timbreUrl. Available once the document is signed (right before its first submission); until then 409 DOCUMENT_NOT_SIGNED.',
        query: PRINT_QUERY_DOCS,
        responses: {
          '200': PDF_RESPONSE,
          '404': ERR('NOT_FOUND: no such document for this tenant and environment.'),
          '409': ERR('DOCUMENT_NOT_SIGNED: the document is not signed yet, or ended in error before it was.'),
          '422': ERR('VALIDATION_ERROR: formato is not one of carta, a4, ticket80, or another query parameter was given.'),
        },
      },
      handler: async (ctx) => pdfReply(await documents.printed(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId'), readPrintFormat(ctx.query))),
    },
    {
      method: 'GET', path: '/{env}/documentos-ecf/{internalTrackId}/arecf', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getDocumentArecf', tags: ['Documents'], summary: 'The buyer\'s signed ARECF',
        description: 'The acknowledgement (ARECF) the buyer\'s receiver answered when the e-CF was delivered to it, exactly as received; its signature was verified to be the buyer\'s. The delivery runs after DGII\'s verdict of aceptado or aceptado_condicional, never before (see `receptor` on the document). Estado 0 is recibido; 1 is no_recibido with CodigoMotivoNoRecibido.',
        responses: {
          '200': { description: 'The signed ARECF (UTF-8).', contentType: 'application/xml', schema: S.string() },
          '404': ERR('NOT_FOUND: no such document for this tenant and environment, or the buyer has not answered (receptor.estado pendiente, no_aplica or error).'),
        },
      },
      handler: async (ctx) => ({
        status: 200,
        raw: { data: await documents.arecf(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId')), contentType: 'application/xml; charset=utf-8' },
      }),
    },
    {
      method: 'GET', path: '/{env}/documentos-ecf/{internalTrackId}/rfce', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getDocumentRfce', tags: ['Documents'], summary: 'The signed RFCE sent to DGII',
        description: 'The summary (RFCE) of a type 32 under RD$250,000, which is what DGII receives of it, byte for byte as signed. DGII asks taxpayers to keep it; the ZIP export carries it as {RNCEmisor}{eNCF}-RFCE.xml.',
        responses: {
          '200': { description: 'The signed RFCE (UTF-8).', contentType: 'application/xml', schema: S.string() },
          '404': ERR('NOT_FOUND: no such document for this tenant and environment, or it has no RFCE (not a type 32 under RD$250,000, or not signed yet).'),
        },
      },
      handler: async (ctx) => ({
        status: 200,
        raw: { data: await documents.rfce(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId')), contentType: 'application/xml; charset=utf-8' },
      }),
    },
    {
      method: 'GET', path: '/{env}/documentos-ecf/{internalTrackId}/acecf', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getDocumentAcecf', tags: ['Documents'], summary: 'The buyer\'s signed commercial approval (ACECF)',
        description: 'The ACECF the buyer sent to this tenant\'s receiver about this e-CF (see aprobacionComercial on the document), byte for byte as received; its signature was verified to be the buyer\'s. The ZIP export carries it as {RNCEmisor}{eNCF}-ACECF.xml.',
        responses: {
          '200': { description: 'The signed ACECF (UTF-8).', contentType: 'application/xml', schema: S.string() },
          '404': ERR('NOT_FOUND: no such document for this tenant and environment, or the buyer has sent no commercial approval.'),
        },
      },
      handler: async (ctx) => ({
        status: 200,
        raw: { data: await documents.acecf(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId')), contentType: 'application/xml; charset=utf-8' },
      }),
    },
  ];
}
