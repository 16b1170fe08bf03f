import type { IdempotencyStore } from '../idempotency/idempotent.ts';
import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { PAGE_QUERY_DOCS, pageResponse, readPage } from '../http/paging.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import { IDEMPOTENCY_HEADER, REPLAYED } from '../sequences/routes.ts';
import type { SequenceService } from '../sequences/service.ts';
import type { AnnulmentService } from './annulments.ts';
import type { DocumentService } from './service.ts';

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });

export interface AnnulmentRouteDeps {
  documents: DocumentService;
  annulments: AnnulmentService;
  sequences: SequenceService;
  idempotency: IdempotencyStore;
}

/** The resending actions (…/reenviar to DGII, …/receptor/reenviar to the buyer) and the annulments (ANECF). */
export function annulmentRoutes(deps: AnnulmentRouteDeps): Route[] {
  const { documents, annulments, sequences, idempotency } = deps;
  return [
    {
      method: 'POST', path: '/{env}/documentos-ecf/{internalTrackId}/reenviar', auth: 'apiKeyOrBearer', rateScope: 'emit',
      doc: {
        operationId: 'resubmitDocument', tags: ['Documents'], summary: 'Send a document in error again',
        description: 'For a document in `error` (for instance emitted before a certificate was uploaded): it goes back to `recibido` with the same eNCF, is signed anew with the current certificate and submitted again; its history shows the resubmission and every state change is an ecf.status_update. Idempotency-Key works as on emit.',
        headers: IDEMPOTENCY_HEADER,
        responses: {
          '202': { description: 'Queued for submission.', schema: envelope(S.ref('EmittedDocument')), headers: REPLAYED },
          '404': ERR('NOT_FOUND'),
          '409': ERR('CONFLICT: the document is not in error; ENCF_ANNULLED: an annulment holds its eNCF (also when POST /{env}/anulaciones of it ran at the same moment: the two are exclusive, the first one wins); IDEMPOTENCY_KEY_CONFLICT (the key was used on another path or with another body) or IDEMPOTENCY_KEY_IN_USE.'),
        },
      },
      handler: idempotency.wrap(async (ctx, claim) => {
        const view = await documents.resubmit(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId'), async (tx, v) => {
          await claim?.storeIn(tx, { status: 202, body: { success: true, data: v } });
        });
        return { status: 202, body: { success: true, data: view } };
      }),
    },
    {
      method: 'POST', path: '/{env}/documentos-ecf/{internalTrackId}/receptor/reenviar', auth: 'apiKeyOrBearer', rateScope: 'emit',
      doc: {
        operationId: 'redeliverToBuyer', tags: ['Documents'], summary: 'Deliver a document to its buyer again',
        description: 'For a document whose buyer leg ended in `receptor.estado` = `error` (the buyer\'s receiver failed past EXCHANGE_MAX_ATTEMPTS, answered something that is not its signed ARECF, or its directory URL was refused), once the buyer\'s side is fixed: the leg goes back to `pendiente` (an ecf.receptor_update says so) and the delivery runs again with a fresh retry budget, ending as a first one does (recibido, no_recibido, no_aplica or error, each with its ecf.receptor_update). The document and its DGII state are untouched. Idempotency-Key works as on emit.',
        headers: IDEMPOTENCY_HEADER,
        responses: {
          '202': { description: 'Queued for delivery to the buyer; `receptor.estado` is `pendiente`.', schema: envelope(S.ref('DocumentSummary')), headers: REPLAYED },
          '404': ERR('NOT_FOUND'),
          '409': ERR('CONFLICT: the buyer leg is not in error (pendiente, recibido, no_recibido or no_aplica); IDEMPOTENCY_KEY_CONFLICT or IDEMPOTENCY_KEY_IN_USE.'),
        },
      },
      handler: idempotency.wrap(async (ctx, claim) => {
        const view = await documents.redeliver(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId'), async (tx, v) => {
          await claim?.storeIn(tx, { status: 202, body: { success: true, data: v } });
        });
        return { status: 202, body: { success: true, data: view } };
      }),
    },
    {
      method: 'POST', path: '/{env}/anulaciones', auth: 'apiKeyOrBearer', rateScope: 'sensitive', body: 'json',
      doc: {
        operationId: 'annulNumbers', tags: ['Sequences'], summary: 'Annul eNCF numbers that will never be used (ANECF)',
        description: 'Annuls desde–hasta of one type: unused numbers of a registered range and numbers of documents in `error`. The span must lie within one registered range (or, outside every range, consist only of documents in error). One request is one ANECF with one line and one desde–hasta pair, so DGII\'s limits per ANECF (10 lines, 10 000 pairs per line, 10-digit counts) are never reached: any span up to 9 999 999 999 numbers is sent as is. The numbers are held at once (numbering skips them), the ANECF is built, signed like an e-CF and sent to DGII\'s anulacionrangos service in the background. estado: recibido → aceptado (documents in error inside become `anulado`, with their ecf.status_update) | rechazado (the numbers numbering has not passed are given back) | error (not sent: no certificate, or DGII unreachable for the retry budget; the numbers stay held). Idempotency-Key works as on emit.',
        headers: IDEMPOTENCY_HEADER,
        requestBody: { schema: S.ref('AnnulmentBody') },
        responses: {
          '202': { description: 'Accepted; follow it with GET.', schema: envelope(S.ref('Annulment')), headers: { Location: { description: 'The annulment.', schema: S.string() }, ...REPLAYED } },
          '409': ERR('CONFLICT: in CerteCF, where DGII publishes no Anulación Rangos service (Descripción Técnica v1.6, bitácora 28-12-2020); the span holds a document in a state other than error (the message names the first eNCF; also one a POST …/reenviar at the same moment moved out of error: the two are exclusive, the first one wins), or overlaps an annulment that holds its numbers; IDEMPOTENCY_KEY_CONFLICT or IDEMPOTENCY_KEY_IN_USE.'),
          '422': ERR('VALIDATION_ERROR: tipo unknown, desde/hasta not eNCFs of the type, desde after hasta, or the span is not within one registered range.'),
        },
      },
      handler: idempotency.wrap(async (ctx, claim) => {
        const env = envOf(ctx);
        const view = await annulments.request(tenantOf(ctx), env, ctx.body, async (tx, v) => {
          await claim?.storeIn(tx, { status: 202, body: { success: true, data: v }, headers: { location: `/${env}/anulaciones/${v.id}` } });
        });
        return { status: 202, body: { success: true, data: view }, headers: { location: `/${env}/anulaciones/${view.id}` } };
      }),
    },
    {
      method: 'GET', path: '/{env}/anulaciones', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listAnnulments', tags: ['Sequences'], summary: 'Annulments, newest first',
        query: { ...PAGE_QUERY_DOCS },
        responses: { '200': pageResponse('Annulment'), '422': ERR('VALIDATION_ERROR: a parameter is not valid.') },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const { pageSize, after } = readPage(q);
        q.done();
        return ok(await sequences.listAnnulments(tenantOf(ctx), envOf(ctx), pageSize, after));
      },
    },
    {
      method: 'GET', path: '/{env}/anulaciones/{id}', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getAnnulment', tags: ['Sequences'], summary: 'An annulment with the documents it covers',
        responses: { '200': { description: 'The annulment.', schema: envelope(S.ref('AnnulmentDetail')) }, '404': ERR('NOT_FOUND') },
      },
      handler: async (ctx) => ok(await annulments.detail(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'))),
    },
    {
      method: 'GET', path: '/{env}/anulaciones/{id}/xml', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getAnnulmentXml', tags: ['Sequences'], summary: 'The signed ANECF',
        responses: {
          '200': { description: 'The signed ANECF as sent to DGII (UTF-8).', contentType: 'application/xml', schema: S.string() },
          '404': ERR('NOT_FOUND: no such annulment, or not signed yet.'),
        },
      },
      handler: async (ctx) => ({
        status: 200,
        raw: { data: await sequences.annulmentXml(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id')), contentType: 'application/xml; charset=utf-8' },
      }),
    },
  ];
}
