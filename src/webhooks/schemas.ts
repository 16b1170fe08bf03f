import { EVENT_KINDS } from '../events/outbox.ts';
import { S, type Schema } from '../http/openapi.ts';
import { ESTADO_NAMES, RECEPTOR_ESTADOS } from '../ecf/states.ts';
import { DELIVERY_STATUSES } from './queries.ts';

export const SETTINGS: Schema = S.object({
  webhookUrl: S.nullable(S.string({ format: 'uri', maxLength: 2048 })),
  secretConfigured: S.bool(),
  updatedAt: S.nullable(S.dateTime()),
  previousSecretExpiresAt: S.nullable({ ...S.dateTime(), description: 'After a rotation: until when the previous secret still signs deliveries beside the current one; null when only one secret signs.' }),
  webhookSecret: S.string({ description: 'Only in the answer that generated it (a PUT with "generate": true, or a rotation without webhookSecret): the new secret, shown once.' }),
}, ['webhookUrl', 'secretConfigured', 'updatedAt', 'previousSecretExpiresAt']);

/** What a delivery is about, from its event's payload: which fields depends on the event. */
export const DELIVERY_SUBJECT: Schema = {
  description: 'What the delivery is about, copied from its payload: for ecf.status_update the document and the estado it reached; for ecf.received the received e-CF and its emisor (razonSocialEmisor when the payload has one); for ecf.receptor_update the document and its buyer leg\'s receptor.estado; for ecf.commercial_approval the document and the buyer\'s aprobacionComercial.estado; null for webhook.test, sequence.low and sequence.expiring.',
  oneOf: [
    S.object({ encf: S.string(), estado: S.string({ enum: [...ESTADO_NAMES] }), internalTrackId: S.uuid() }),
    S.object({ encf: S.string(), rncEmisor: S.string(), razonSocialEmisor: S.string() }, ['encf', 'rncEmisor']),
    S.object({ encf: S.string(), internalTrackId: S.uuid(), receptor: S.string({ enum: [...RECEPTOR_ESTADOS] }) }),
    S.object({ encf: S.string(), internalTrackId: S.uuid(), aprobacionComercial: S.string({ enum: ['aprobado', 'rechazado'] }) }),
    { type: 'null' },
  ],
};

export const DELIVERY: Schema = S.object({
  id: S.uuid(),
  eventId: S.uuid(),
  event: S.string({ enum: [...EVENT_KINDS] }),
  subject: S.ref('WebhookDeliverySubject'),
  status: S.string({ enum: [...DELIVERY_STATUSES] }),
  url: S.string(),
  attemptCount: S.int(),
  lastStatusCode: S.nullable(S.int()),
  lastError: S.nullable(S.string()),
  lastAttemptAt: S.nullable(S.dateTime()),
  nextAttemptAt: S.nullable(S.dateTime()),
  deliveredAt: S.nullable(S.dateTime()),
  createdAt: S.dateTime(),
});

export const ATTEMPT: Schema = S.object({
  number: S.int({ description: 'X-ECF-Delivery-Attempt of this try.' }),
  at: S.dateTime(),
  url: S.string(),
  statusCode: S.nullable(S.int()),
  durationMs: S.int(),
  ok: S.bool(),
  error: S.nullable(S.string()),
  responseBody: S.string({ description: 'The first KiB of the receiver\'s answer.' }),
});

export const TEST_EVENT: Schema = S.object({
  event: S.string({ const: 'webhook.test' }),
  tenantId: S.int(),
  timestamp: S.string({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' }),
  message: S.string(),
});

/** The ecf.received payload: the received document's summary, with the event and its time. */
export const RECEIVED_EVENT: Schema = {
  allOf: [
    S.object({ event: S.string({ const: 'ecf.received' }), timestamp: S.string({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' }) }),
    S.ref('ReceivedDocumentSummary'),
  ],
};

export const WEBHOOK_SCHEMAS: Record<string, Schema> = {
  WebhookSettings: SETTINGS,
  WebhookDelivery: DELIVERY,
  WebhookDeliverySubject: DELIVERY_SUBJECT,
  WebhookAttempt: ATTEMPT,
  WebhookTestEvent: TEST_EVENT,
  ReceivedEvent: RECEIVED_EVENT,
};
