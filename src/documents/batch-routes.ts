import { AppError, errorEnvelope, validationError } from '../errors.ts';
import { S } from '../http/openapi.ts';
import { envOf, tenantOf } from '../http/params.ts';
import type { Reply, Route } from '../http/types.ts';
import type { IdempotencyStore } from '../idempotency/idempotent.ts';
import type { DocumentService } from './service.ts';
import { emitWarnings, envelopeWithWarnings } from './emit-warnings.ts';

// POST /{env}/documentos-ecf/lote: up to MAX_BATCH documents in one request, each validated and
// emitted as POST /{env}/documentos-ecf would, answered one result per document in order. The
// emits start together, so the numbering (numbering.ts) stores each sequence's documents in as
// few transactions as it can (up to 64 documents in one), whatever the request's size.
// One Idempotency-Key covers the batch: each document is also held under a key derived from it
// and its place, its answer stored in its own transaction, so a retry after a crash or a 5xx
// replays the documents already stored and emits only the others.

export const MAX_BATCH = 100;
/** A batch's body: up to 100 e-CF of up to ~80 KiB each. */
const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

export interface BatchRouteDeps {
  documents: DocumentService;
  idempotency: IdempotencyStore;
  signingReady?: (tenantId: number) => Promise<boolean>;
}

/** One document's outcome: its place, the status its own emit would have had, and the document or the error. */
export type BatchResult =
  | { indice: number; status: number; success: true; data: unknown }
  | { indice: number; status: number; success: false; error: unknown };

function readBatch(body: unknown): unknown[] {
  const fail = (message: string) => validationError([{ path: 'documentos', message }], 'The batch is not valid');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fail(`must be an object { "documentos": [ … ] }`);
  const extra = Object.keys(body).filter((k) => k !== 'documentos');
  if (extra.length > 0) throw validationError(extra.map((k) => ({ path: k, message: 'is not a field of a batch' })), 'The batch is not valid');
  const docs = (body as { documentos?: unknown }).documentos;
  if (!Array.isArray(docs)) throw fail('is required: an array of e-CF documents');
  if (docs.length === 0 || docs.length > MAX_BATCH) throw fail(`must hold 1 to ${MAX_BATCH} documents (got ${docs.length})`);
  return docs;
}

/** The batch's documents beyond the first: what it takes from the emit rate limit besides one request. */
function extraDocuments(body: unknown): number {
  const docs = typeof body === 'object' && body !== null ? (body as { documentos?: unknown }).documentos : undefined;
  return Array.isArray(docs) ? Math.min(docs.length, MAX_BATCH) - 1 : 0;
}

function resultOf(indice: number, reply: Reply): BatchResult {
  const body = (reply.raw !== undefined ? JSON.parse(String(reply.raw.data)) : reply.body) as { success?: boolean; data?: unknown; error?: unknown };
  return body.success === true
    ? { indice, status: reply.status, success: true, data: body.data }
    : { indice, status: reply.status, success: false, error: body.error };
}

const RESULT = {
  oneOf: [
    S.object({ indice: S.int({ minimum: 0 }), status: S.int({ enum: [202] }), success: { const: true }, data: S.ref('EmittedDocument') }),
    S.object({
      indice: S.int({ minimum: 0 }),
      status: S.int({ description: 'The status POST /{env}/documentos-ecf would have answered: 409 or 422.' }),
      success: { const: false },
      error: { type: 'object', required: ['code', 'message'], properties: { code: S.string(), message: S.string(), details: S.array(S.object({ path: S.string(), message: S.string() })) } },
    }),
  ],
};

export function batchRoutes(deps: BatchRouteDeps): Route[] {
  const { documents, idempotency } = deps;
  return [{
    method: 'POST', path: '/{env}/documentos-ecf/lote', auth: 'apiKeyOrBearer', rateScope: 'emit', body: 'json', bodyLimit: BATCH_BODY_LIMIT,
    extraRateCost: extraDocuments,
    doc: {
      operationId: 'emitDocumentBatch', tags: ['Documents'], summary: 'Emit up to 100 e-CF at once',
      description: `Takes \`{ "documentos": [ … ] }\`, 1 to ${MAX_BATCH} documents each as POST /{env}/documentos-ecf takes one (bodies up to 8 MiB), and answers 200 with \`resultados\`: one entry per document, in the order sent, with the status its own emit would have had and the stored document (202) or its error (409 ENCF_ALREADY_USED, SEQUENCE_EXHAUSTED; 422 VALIDATION_ERROR). A document's error never fails the others. The documents are stored in as few transactions as their eNCF sequences allow. The batch counts as its documents against the emit rate limit (at most the whole bucket). One Idempotency-Key covers the batch: a retry with the same body gets the same answer; after a 5xx, a retry with the key stores only the documents that were not stored and replays the others.`,
      headers: { 'Idempotency-Key': { description: 'Makes retries of the whole batch safe; scoped per tenant and environment.', schema: S.string({ minLength: 1, maxLength: 255 }) } },
      requestBody: { schema: S.object({ documentos: { type: 'array', minItems: 1, maxItems: MAX_BATCH, items: S.ref('EcfBody') } }) },
      responses: {
        '200': { description: 'One result per document, in order; `warnings` as for a single emit.', schema: envelopeWithWarnings(S.object({ resultados: S.array(RESULT), aceptados: S.int({ minimum: 0 }), rechazados: S.int({ minimum: 0 }) })) },
        '400': { description: 'INVALID_JSON, or VALIDATION_ERROR for a malformed Idempotency-Key.', schema: S.ref('ErrorEnvelope') },
        '409': { description: 'IDEMPOTENCY_KEY_CONFLICT or IDEMPOTENCY_KEY_IN_USE, as for a single emit.', schema: S.ref('ErrorEnvelope') },
        '422': { description: 'VALIDATION_ERROR: the body is not `{ "documentos": [ … ] }` with 1 to 100 documents.', schema: S.ref('ErrorEnvelope') },
      },
    },
    handler: idempotency.wrap(async (ctx) => {
      const env = envOf(ctx);
      const tenantId = tenantOf(ctx);
      const docs = readBatch(ctx.body);
      // The tenant's RNC read once before the documents start, so that they all reach the
      // numbering together (a first lookup each would spread them over round trips).
      await documents.rncOf(tenantId);
      const outcomes = await Promise.allSettled(docs.map((doc, i) => idempotency.item(ctx, i, doc, async (claim) => {
        const stored = (v: { internalTrackId: string }): Reply => ({ status: 202, body: { success: true, data: v }, headers: { location: `/${env}/documentos-ecf/${v.internalTrackId}` } });
        const { view } = await documents.emit(tenantId, env, doc, async (tx, v) => { await claim?.storeIn(tx, stored(v)); });
        return stored(view);
      })));
      // A server failure of one document fails the batch (5xx: its key is released) once every
      // other document has settled: a retry with the key replays what was stored.
      const broken = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected' && !(o.reason instanceof AppError && o.reason.status < 500));
      if (broken !== undefined) throw broken.reason;
      const resultados = outcomes.map((o, i) => resultOf(i, o.status === 'fulfilled' ? o.value : { status: (o.reason as AppError).status, body: errorEnvelope(o.reason as AppError) }));
      const aceptados = resultados.filter((r) => r.success).length;
      const warnings = aceptados === 0 ? [] : await emitWarnings(deps.signingReady, tenantId);
      return { status: 200, body: { success: true, data: { resultados, aceptados, rechazados: resultados.length - aceptados }, ...(warnings.length === 0 ? {} : { warnings }) } };
    }),
  }];
}
