import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { PAGE_QUERY_DOCS, pageResponse, readPage } from '../http/paging.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import type { IdempotencyStore } from '../idempotency/idempotent.ts';
import type { CommercialApprovals } from './service.ts';

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });
const TAGS = ['Aprobaciones comerciales'];
const PATH = '/{env}/aprobaciones-comerciales';

export function commercialApprovalRoutes(deps: { approvals: CommercialApprovals; idempotency: IdempotencyStore }): Route[] {
  const { approvals, idempotency } = deps;
  return [
    {
      method: 'POST', path: PATH, auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: 'sendCommercialApproval', tags: TAGS, summary: 'Approve or reject any e-CF as its buyer (ACECF)',
        description: 'For an e-CF this tenant bought, whether or not it reached this service\'s receiver (DGII\'s certification step 3, invoices that arrive by other channels): builds the ACECF with this tenant\'s RNC as RNCComprador (valid against DGII\'s acecf.xsd), signs it with the tenant\'s certificate and sends it in the background, with retries, to DGII\'s aprobacioncomercial service and to the emisor\'s receiver when DGII\'s directory lists it. DGII refusing the ACECF because it does not hold the e-CF yet (Factura no encontrada) is retried on the same schedule: the DGII leg stays pendiente until DGII takes it or the tries run out (then error). One decision per e-CF (emisor RNC and eNCF) per environment. With an Idempotency-Key a retry with the same body gets the original answer with Idempotent-Replayed: true.',
        headers: { 'Idempotency-Key': { description: 'Makes retries safe; scoped per tenant and environment.', schema: S.string({ minLength: 1, maxLength: 255 }) } },
        requestBody: { schema: S.ref('CommercialApprovalRequestInput') },
        responses: {
          '202': { description: 'Signed and queued for sending.', schema: envelope(S.ref('CommercialApprovalRequest')) },
          '409': ERR('CONFLICT: a decision was already sent for this e-CF, or the tenant has no valid certificate; IDEMPOTENCY_KEY_* as on emit.'),
          '422': ERR('VALIDATION_ERROR: a field is missing or not valid (RNC, eNCF, date, amount, estado, motivo), the emisor is this tenant, or an unknown field.'),
        },
      },
      handler: idempotency.wrap(async (ctx, claim) => {
        const view = await approvals.create(tenantOf(ctx), envOf(ctx), ctx.body, async (tx, v) => {
          await claim?.storeIn(tx, { status: 202, body: { success: true, data: v } });
        });
        return { status: 202, body: { success: true, data: view } };
      }),
    },
    {
      method: 'GET', path: PATH, auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listCommercialApprovals', tags: TAGS, summary: 'The commercial approvals this tenant sent as buyer, newest first, with each leg\'s outcome',
        query: { ...PAGE_QUERY_DOCS },
        responses: { '200': pageResponse('CommercialApprovalRequest'), '422': ERR('VALIDATION_ERROR: a parameter is not valid.') },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const { pageSize, after } = readPage(q);
        q.done();
        return ok(await approvals.list(tenantOf(ctx), envOf(ctx), after, pageSize));
      },
    },
    {
      method: 'GET', path: `${PATH}/{id}`, auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getCommercialApproval', tags: TAGS, summary: 'One commercial approval this tenant sent, with each leg\'s outcome',
        responses: { '200': { description: 'The approval.', schema: envelope(S.ref('CommercialApprovalRequest')) }, '404': ERR('NOT_FOUND: no such approval for this tenant and environment.') },
      },
      handler: async (ctx) => ok(await approvals.get(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'))),
    },
  ];
}
