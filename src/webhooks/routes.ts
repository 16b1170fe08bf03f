import { EVENT_KINDS } from '../events/outbox.ts';
import { S, envelope } from '../http/openapi.ts';
import { tenantOf, uuidParam } from '../http/params.ts';
import { PAGE_QUERY_DOCS, pageResponse, readPage } from '../http/paging.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import { DELIVERY_STATUSES } from './queries.ts';
import type { WebhookService } from './service.ts';
import type { WebhookSettings } from './settings.ts';

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });
const STATUS_FILTERS = [...DELIVERY_STATUSES, 'failed'] as const;

export function webhookRoutes(deps: { settings: WebhookSettings; webhooks: WebhookService; attemptTimeoutMs: number }): Route[] {
  const { settings, webhooks } = deps;
  return [
    {
      method: 'GET', path: '/api/webhooks/settings', auth: 'bearer',
      doc: { operationId: 'getWebhookSettings', tags: ['Webhooks'], summary: 'The webhook URL, and whether a secret is set', responses: { '200': { description: 'Settings.', schema: envelope(S.ref('WebhookSettings')) } } },
      handler: async (ctx) => ok(await settings.get(tenantOf(ctx))),
    },
    {
      method: 'PUT', path: '/api/webhooks/settings', auth: 'bearer', body: 'json',
      doc: {
        operationId: 'putWebhookSettings', tags: ['Webhooks'], summary: 'Set the webhook URL and secret',
        description: 'Fields left out keep their value; null clears. `webhookUrl` is an absolute http or https URL without credentials (user:password@). `webhookSecret` (16–256 characters) is write-only; `"generate": true` makes the server create one and show it in this answer only. Deliveries are signed when a secret is set: X-ECF-Signature: sha256=<hex HMAC-SHA256 of the body> and the Standard Webhooks webhook-signature (see docs/webhooks.md); a generated secret is whsec_<base64 of 32 bytes>, and a given secret starting with whsec_ must be base64 of 16–64 bytes. A secret set here replaces the old one at once; POST /api/webhooks/settings/rotate-secret keeps the old one signing during an overlap. A URL whose host is a forbidden address (loopback, private, link-local, reserved...), as an IP literal or as a name that resolves to one, is refused with 422 unless the operator set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true.',
        requestBody: { schema: S.object({ webhookUrl: S.nullable(S.string({ format: 'uri', maxLength: 2048 })), webhookSecret: S.nullable(S.string({ minLength: 16, maxLength: 256 })), generate: S.bool() }, []) },
        responses: { '200': { description: 'The saved settings.', schema: envelope(S.ref('WebhookSettings')) }, '422': ERR('VALIDATION_ERROR.') },
      },
      handler: async (ctx) => ok(await settings.update(tenantOf(ctx), ctx.body)),
    },
    {
      method: 'POST', path: '/api/webhooks/settings/rotate-secret', auth: 'bearer', rateScope: 'sensitive', body: 'optionalJson',
      doc: {
        operationId: 'rotateWebhookSecret', tags: ['Webhooks'], summary: 'Rotate the webhook secret with an overlap',
        description: 'Replaces the secret with `webhookSecret`, or with a generated one shown in this answer only, and keeps the previous secret signing for WEBHOOK_SECRET_ROTATION_OVERLAP_HOURS (24 h by default; `previousSecretExpiresAt` says until when). During the overlap every delivery carries both signatures, the new one first: two space-separated v1 values in webhook-signature, and two comma-separated sha256= values in X-ECF-Signature. Receivers accept a delivery when any value matches their secret, so they can switch at any moment of the overlap.',
        requestBody: { required: false, schema: S.object({ webhookSecret: S.string({ minLength: 16, maxLength: 256 }) }, []) },
        responses: {
          '200': { description: 'The saved settings, with `webhookSecret` when it was generated.', schema: envelope(S.ref('WebhookSettings')) },
          '409': ERR('CONFLICT: no secret is set, so there is nothing to rotate (set one with PUT /api/webhooks/settings).'),
          '422': ERR('VALIDATION_ERROR: a webhookSecret of the wrong length or a malformed whsec_ secret.'),
        },
      },
      handler: async (ctx) => ok(await settings.rotate(tenantOf(ctx), ctx.body)),
    },
    {
      method: 'POST', path: '/api/webhooks/test', auth: 'bearer', rateScope: 'sensitive', body: 'optionalJson', extraDeadlineMs: deps.attemptTimeoutMs,
      doc: {
        operationId: 'sendTestWebhook', tags: ['Webhooks'], summary: 'Send a webhook.test delivery now',
        description: 'Creates a `webhook.test` delivery ({ event, tenantId, timestamp, message }), makes its first attempt at once and answers with the delivery and that attempt; a failed delivery then follows the retry schedule.',
        requestBody: { required: false, schema: S.object({}, []) },
        responses: { '200': { description: 'The delivery and its first attempt.', schema: envelope(S.object({ delivery: S.ref('WebhookDelivery'), attempt: S.nullable(S.ref('WebhookAttempt')) })) }, '422': ERR('VALIDATION_ERROR: no webhook URL is configured.') },
      },
      handler: async (ctx) => ok(await webhooks.sendTest(tenantOf(ctx))),
    },
    {
      method: 'GET', path: '/api/webhooks/deliveries', auth: 'bearer',
      doc: {
        operationId: 'listWebhookDeliveries', tags: ['Webhooks'], summary: 'List deliveries, newest first',
        query: {
          status: { description: 'pending, delivered, abandoned, or failed (abandoned, or pending after a failed attempt).', schema: S.string({ enum: [...STATUS_FILTERS] }) },
          event: { description: 'Event kind.', schema: S.string({ enum: [...EVENT_KINDS] }) },
          ...PAGE_QUERY_DOCS,
        },
        responses: { '200': pageResponse('WebhookDelivery'), '422': ERR('VALIDATION_ERROR: a filter value is not valid.') },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const status = q.oneOf('status', STATUS_FILTERS);
        const event = q.oneOf('event', EVENT_KINDS);
        const { pageSize, after } = readPage(q);
        q.done();
        return ok(await webhooks.list({ tenantId: tenantOf(ctx), status, event, after, pageSize }));
      },
    },
    {
      method: 'GET', path: '/api/webhooks/deliveries/{id}', auth: 'bearer',
      doc: { operationId: 'getWebhookDelivery', tags: ['Webhooks'], summary: 'A delivery with its attempts and the exact body sent', responses: { '200': { description: 'The delivery.', schema: envelope({ allOf: [S.ref('WebhookDelivery'), S.object({ body: S.string(), attempts: S.array(S.ref('WebhookAttempt')) })] }) } } },
      handler: async (ctx) => ok(await webhooks.get(tenantOf(ctx), uuidParam(ctx, 'id'))),
    },
    {
      method: 'POST', path: '/api/webhooks/deliveries/{id}/redeliver', auth: 'bearer', body: 'optionalJson',
      doc: { operationId: 'redeliverWebhook', tags: ['Webhooks'], summary: 'Start a new series of attempts for a delivery', responses: { '202': { description: 'Queued; the first attempt starts at once.', schema: envelope(S.ref('WebhookDelivery')) } } },
      handler: async (ctx) => ok(await webhooks.redeliver(tenantOf(ctx), uuidParam(ctx, 'id')), 202),
    },
  ];
}
