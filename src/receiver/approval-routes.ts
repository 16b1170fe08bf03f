import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import type { Route } from '../http/types.ts';
import type { IdempotencyStore } from '../idempotency/idempotent.ts';
import type { BuyerApprovals } from './buyer-approval.ts';

// The tenant, as buyer, approves or rejects an e-CF it received (an ordinary API route, with the
// tenant's credentials; Idempotency-Key works as on emit).

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });

export function approvalRoutes(deps: { approvals: BuyerApprovals; idempotency: IdempotencyStore }): Route[] {
  const { approvals, idempotency } = deps;
  return [
    {
      method: 'POST', path: '/{env}/documentos-recibidos/{id}/aprobacion', auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: 'decideReceivedDocument', tags: ['Receptor'], summary: 'Approve or reject a received e-CF (commercial approval, ACECF)',
        description: 'Builds the ACECF (valid against DGII\'s acecf.xsd: Estado 1 aprobado, or 2 rechazado with DetalleMotivoRechazo), signs it with the tenant\'s certificate and sends it in the background, with retries, to the emisor\'s approval service (its urlAceptacion in DGII\'s directory, /fe/aprobacioncomercial/api/ecf) and to DGII\'s aprobacioncomercial service. DGII refusing the ACECF because it does not hold the e-CF yet (Factura no encontrada) is retried on the same schedule: the DGII leg stays pendiente until DGII takes it or the tries run out (then error). Each leg\'s outcome (pendiente, enviado, no_aplica, error) shows under aprobacionComercial on GET /{env}/documentos-recibidos/{id}, and its end is an ecf.commercial_approval_update webhook event. A receiver whose directory entry gives no authentication URL (urlOpcional empty) gets the ACECF without a token. One decision per document. With an Idempotency-Key a retry with the same body gets the original answer with Idempotent-Replayed: true.',
        headers: { 'Idempotency-Key': { description: 'Makes retries safe; scoped per tenant and environment.', schema: S.string({ minLength: 1, maxLength: 255 }) } },
        requestBody: {
          schema: {
            type: 'object', additionalProperties: false, required: ['estado'],
            properties: { estado: S.string({ enum: ['aprobado', 'rechazado'] }), motivo: S.string({ minLength: 1, maxLength: 250, description: 'Required with rechazado: DetalleMotivoRechazo.' }) },
          },
        },
        responses: {
          '202': { description: 'Signed and queued for sending.', schema: envelope(S.ref('SentApproval')) },
          '404': ERR('NOT_FOUND: no such received document for this tenant and environment.'),
          '409': ERR('CONFLICT: a decision was already taken on this document, the document is of a type that takes no commercial approval (32, 41, 43, 46, 47 by DGII\'s Descripción técnica v1.6), or the tenant has no valid certificate; IDEMPOTENCY_KEY_* as on emit.'),
          '422': ERR('VALIDATION_ERROR: estado is not aprobado or rechazado, a rejection without motivo, a motivo over 250 characters, or another field.'),
        },
      },
      handler: idempotency.wrap(async (ctx, claim) => {
        const view = await approvals.decide(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'), ctx.body, async (tx, v) => {
          await claim?.storeIn(tx, { status: 202, body: { success: true, data: v } });
        });
        return { status: 202, body: { success: true, data: view } };
      }),
    },
  ];
}
