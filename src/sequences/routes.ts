import type { IdempotencyStore } from '../idempotency/idempotent.ts';
import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import type { SequenceService } from './service.ts';

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });

export const IDEMPOTENCY_HEADER = { 'Idempotency-Key': { description: 'Makes retries safe, exactly as on POST /{env}/documentos-ecf; scoped per tenant and environment.', schema: S.string({ minLength: 1, maxLength: 255 }) } };
export const REPLAYED = { 'Idempotent-Replayed': { description: '"true" when this is the stored answer of an earlier request with the same Idempotency-Key.', schema: S.string({ enum: ['true'] }) } };

export function sequenceRoutes(deps: { sequences: SequenceService; idempotency: IdempotencyStore }): Route[] {
  const { sequences, idempotency } = deps;
  return [
    {
      method: 'POST', path: '/{env}/secuencias', auth: 'apiKeyOrBearer', rateScope: 'sensitive', body: 'json',
      doc: {
        operationId: 'registerRange', tags: ['Sequences'], summary: 'Register an eNCF range DGII authorised',
        description: 'Registers a range of eNCF numbers DGII authorised for this tenant (through its virtual office). Emits without eNCF then take the next free number of the type\'s active range that expires first; once a type has a range, an explicit eNCF must lie in one. In TesteCF and CerteCF a type with no range keeps the implicit numbering from 1; in eCF a type with no range cannot be emitted. Numbers already used by documents when the range is registered are not counted in disponibles. Idempotency-Key works as on emit.',
        headers: IDEMPOTENCY_HEADER,
        requestBody: { schema: S.ref('RangeBody') },
        responses: {
          '201': { description: 'Registered.', schema: envelope(S.ref('Range')), headers: { Location: { description: 'The range.', schema: S.string() }, ...REPLAYED } },
          '409': ERR('CONFLICT: it overlaps a registered range of the same type (the message names it); IDEMPOTENCY_KEY_CONFLICT or IDEMPOTENCY_KEY_IN_USE.'),
          '422': ERR('VALIDATION_ERROR: tipo unknown, desde/hasta not eNCFs of the type, desde after hasta, fechaVencimiento missing (31, 33, 41, 43–47), already passed (Santo Domingo time) or given (32, 34).'),
        },
      },
      handler: idempotency.wrap(async (ctx, claim) => {
        const env = envOf(ctx);
        const view = await sequences.register(tenantOf(ctx), env, ctx.body, async (tx, v) => {
          await claim?.storeIn(tx, { status: 201, body: { success: true, data: v }, headers: { location: `/${env}/secuencias/${v.id}` } });
        });
        return { status: 201, body: { success: true, data: view }, headers: { location: `/${env}/secuencias/${view.id}` } };
      }),
    },
    {
      method: 'GET', path: '/{env}/secuencias', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listRanges', tags: ['Sequences'], summary: 'The registered eNCF ranges, by type then first number',
        responses: { '200': { description: 'Every range of the tenant in the environment.', schema: envelope(S.array(S.ref('Range'))) } },
      },
      handler: async (ctx) => ok(await sequences.list(tenantOf(ctx), envOf(ctx))),
    },
    {
      method: 'GET', path: '/{env}/secuencias/{id}', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getRange', tags: ['Sequences'], summary: 'One registered eNCF range',
        responses: { '200': { description: 'The range.', schema: envelope(S.ref('Range')) }, '404': ERR('NOT_FOUND') },
      },
      handler: async (ctx) => ok(await sequences.get(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'))),
    },
  ];
}
