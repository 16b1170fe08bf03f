import type { Config } from '../config.ts';
import type { EventKind } from '../events/outbox.ts';
import { S, type Schema } from '../http/openapi.ts';

// The OpenAPI 3.1 `webhooks` section: the requests this service makes to a tenant's URL, one
// entry per event kind. The table is typed by EventKind, so a new kind cannot be added without
// its description; the timeout and the retry schedule are this instance's configuration.

const EVENTS = {
  'ecf.status_update': {
    operationId: 'statusUpdateWebhook',
    schema: 'StatusUpdateEvent',
    summary: 'A document\'s estado changed',
    description: 'Sent for every state change of an emitted e-CF (recibido, en_proceso, aceptado, aceptado_condicional, rechazado, error), with DGII\'s code and message once known, its per-document `sequence`, and under `erp` the emit body\'s `referencia` and `metadata` when it had either.',
    sequenced: true,
  },
  'webhook.test': {
    operationId: 'testWebhook',
    schema: 'WebhookTestEvent',
    summary: 'A test event',
    description: 'Sent by POST /api/webhooks/test, to check that the endpoint is reachable and verifies signatures.',
    sequenced: false,
  },
  'ecf.received': {
    operationId: 'receivedWebhook',
    schema: 'ReceivedEvent',
    summary: 'An e-CF from another taxpayer was received',
    description: 'Sent when another taxpayer\'s e-CF addressed to this tenant was accepted by the receiver endpoints (ARECF Estado 0). GET /{env}/documentos-recibidos/{id} has the whole document.',
    sequenced: false,
  },
  'ecf.receptor_update': {
    operationId: 'receptorUpdateWebhook',
    schema: 'ReceptorUpdateEvent',
    summary: 'The buyer leg of an emitted e-CF changed',
    description: 'Sent when the delivery of an emitted e-CF to its buyer\'s receiver ends: recibido (the buyer\'s signed ARECF, Estado 0), no_recibido (Estado 1, with its CodigoMotivoNoRecibido), no_aplica (the buyer is not in DGII\'s directory of electronic receivers, or DGII rejected the e-CF, which is then never delivered) or error (with the reason); and pendiente when the tenant delivers a leg in error again (POST …/receptor/reenviar). GET /{env}/documentos-ecf/{id}/arecf has the ARECF. Its `sequence` continues the document\'s numbering of ecf.status_update.',
    sequenced: true,
  },
  'ecf.commercial_approval': {
    operationId: 'commercialApprovalWebhook',
    schema: 'CommercialApprovalEvent',
    summary: 'The buyer approved or rejected an emitted e-CF',
    description: 'Sent when the buyer of an e-CF this tenant issued sends its signed commercial approval (ACECF) to this tenant\'s receiver: aprobado, or rechazado with the buyer\'s reason. Its `sequence` continues the document\'s numbering of ecf.status_update.',
    sequenced: true,
  },
  'ecf.commercial_approval_update': {
    operationId: 'commercialApprovalUpdateWebhook',
    schema: 'CommercialApprovalUpdateEvent',
    summary: 'A leg of a commercial approval this tenant sent as buyer ended',
    description: 'Sent once for each of the two legs of the ACECF this tenant decided as buyer (POST …/documentos-recibidos/{id}/aprobacion, or the automatic rejection of an e-CF DGII does not know): `leg` emisor (to the emisor\'s receiver at its urlAceptacion) or dgii (DGII\'s aprobacioncomercial service), ending enviado, no_aplica (the emisor is not in DGII\'s directory; no DGII client) or error (with detalle: refused, or the retries spent).',
    sequenced: false,
  },
  'ecf.received_verification': {
    operationId: 'receivedVerificationWebhook',
    schema: 'ReceivedVerificationEvent',
    summary: 'DGII answered about an e-CF this tenant received',
    description: 'Follows ecf.received: the received document\'s summary with its final verificacionDgii (aceptado, aceptado_condicional, rechazado, no_encontrado, en_proceso when DGII still had not processed it after the retries, no_disponible, error), from DGII\'s Consulta Estado asked as buyer with the security code. A document DGII does not know may have been fabricated: with rechazarDesconocidosDgii (PUT /api/receptor/settings) it is rejected with an ACECF, followed by ecf.commercial_approval_update events.',
    sequenced: false,
  },
  'ecf.email_update': {
    operationId: 'emailUpdateWebhook',
    schema: 'EmailUpdateEvent',
    summary: 'The e-mail of an emitted e-CF to its buyer changed',
    description: 'Sent when an accepted e-CF naming a CorreoComprador is queued to be e-mailed to its buyer (pendiente; also on POST …/correo/reenviar), and when the SMTP relay took it (enviado) or it could not be sent (error, with the reason in detalle). Only for tenants that send e-mail (PUT /api/email/settings) on a service with SMTP_URL. Its `sequence` continues the document\'s numbering of ecf.status_update.',
    sequenced: true,
  },
  'sequence.low': {
    operationId: 'sequenceLowWebhook',
    schema: 'SequenceLowEvent',
    summary: 'A type is running out of authorised eNCF numbers',
    description: 'Sent once when the numbers left across a type\'s active ranges (GET /{env}/secuencias) fall to SEQUENCE_LOW_WATERMARK or below, by an emit, an explicit eNCF or an annulment. It is not sent again for that type and environment until registering a range (or a rejected annulment) lifts the count above the watermark.',
    sequenced: false,
  },
  'sequence.expiring': {
    operationId: 'sequenceExpiringWebhook',
    schema: 'SequenceExpiringEvent',
    summary: 'An authorised eNCF range is about to expire',
    description: 'Sent once per active range (numbers left) when its FechaVencimientoSecuencia is SEQUENCE_EXPIRY_WARNING_DAYS days away or less: checked when a range is registered and hourly by a background job. Types 32 and 34 never expire.',
    sequenced: false,
  },
} as const satisfies Record<EventKind, { operationId: string; schema: string; summary: string; description: string; sequenced: boolean }>;

function duration(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

function header(name: string, description: string, schema: Schema, required = true) {
  return { name, in: 'header', required, description, schema };
}

export function webhookEventDocs(config: Config['webhooks']): Record<string, unknown> {
  const timeout = duration(config.timeoutMs);
  const delays = config.retryDelaysMs.map(duration).join(', ');
  const schedule = config.retryDelaysMs.length === 0
    ? 'it is abandoned at once (no retries are configured)'
    : `it stays pending and is retried after ${delays} (WEBHOOK_RETRY_DELAYS_MS); when the last retry fails it is abandoned`;
  const out: Record<string, unknown> = {};
  for (const [kind, e] of Object.entries(EVENTS)) {
    out[kind] = {
      post: {
        operationId: e.operationId,
        summary: e.summary,
        description: `${e.description} A POST to the tenant's webhook URL (PUT /api/webhooks/settings) whose body is the event's JSON. Delivery is at least once and in no guaranteed order: deduplicate by webhook-id (the same as X-ECF-Delivery-Id), and order the events of one document by X-ECF-Event-Sequence (the body's \`sequence\`). Verify webhook-signature (Standard Webhooks) or X-ECF-Signature over the raw body before parsing it, and refuse a webhook-timestamp too far from now (docs/webhooks.md).`,
        tags: ['Webhooks'],
        // A request this service makes: the receiver authenticates it by its signature headers.
        security: [],
        parameters: [
          header('User-Agent', 'ecf-service-webhooks/<service version>.', S.string({ pattern: '^ecf-service-webhooks/' })),
          header('X-ECF-Tenant-Id', 'The tenant the event belongs to.', S.string({ pattern: '^[0-9]+$' })),
          header('X-ECF-Event', 'The event kind, the same as the body\'s `event`.', S.string({ const: kind })),
          header('X-ECF-Delivery-Id', 'The delivery (this event to this URL): the same on every attempt and redelivery, so receivers can deduplicate. GET /api/webhooks/deliveries/{id} shows it.', S.uuid()),
          header('X-ECF-Delivery-Attempt', 'Numbers the attempts of this delivery: 1, 2, ... (a redelivery continues the count).', S.int({ minimum: 1 })),
          header('X-ECF-Signature', 'Sent when a webhook secret is set, omitted otherwise: sha256= and the lowercase hex HMAC-SHA256 of the exact body bytes keyed with the UTF-8 bytes of the secret (the scheme of GitHub\'s X-Hub-Signature-256). During a secret rotation\'s overlap two values, the new secret\'s first, separated by ", ". Compare in constant time.', S.string({ pattern: '^sha256=[0-9a-f]{64}(, sha256=[0-9a-f]{64})?$' }), false),
          header('webhook-id', 'Standard Webhooks: the delivery id, the same as X-ECF-Delivery-Id (stable across retries and redeliveries).', S.uuid()),
          header('webhook-timestamp', 'Standard Webhooks: when this attempt was signed, in seconds since the Unix epoch. Refuse deliveries older than a few minutes to stop replays.', S.string({ pattern: '^[0-9]+$' })),
          header('webhook-signature', 'Standard Webhooks, sent when a webhook secret is set: v1, and the base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed with the base64 decoding of what follows whsec_ (the UTF-8 bytes of a secret not in that form). During a rotation\'s overlap two space-separated values, the new secret\'s first. The standardwebhooks and svix libraries verify it unchanged.', S.string({ pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)?$' }), false),
          ...(e.sequenced ? [header('X-ECF-Event-Sequence', 'The per-document event number (the body\'s `sequence`): 1 for the document\'s first event, one more for each later one. A receiver that already processed a higher number for this document can drop this event as stale.', S.string({ pattern: '^[1-9][0-9]*$' }))] : []),
        ],
        requestBody: { required: true, content: { 'application/json': { schema: S.ref(e.schema) } } },
        responses: {
          '2XX': { description: `Acknowledged: any 2xx status within ${timeout} (WEBHOOK_TIMEOUT_MS) delivers the event; it is not sent again unless redelivered. The first KiB of the answer is kept in the attempt log.` },
          default: { description: `Any other outcome fails the attempt: another status (a 3xx redirect is not followed), a connection error, a refused destination, or no complete answer within ${timeout}. Then ${schedule}. POST /api/webhooks/deliveries/{id}/redeliver starts a new series of attempts.` },
        },
      },
    };
  }
  return out;
}
