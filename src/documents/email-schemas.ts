// OpenAPI schemas of the e-CF e-mailed to its buyer.
import { S, type Schema } from '../http/openapi.ts';
import { EMAIL_ESTADOS } from './email-queries.ts';

export const DOCUMENT_EMAIL: Schema = {
  ...S.nullable(S.object({
    estado: S.string({ enum: [...EMAIL_ESTADOS], description: 'pendiente: queued (DGII accepted the e-CF, or the tenant asked to send it again) and being sent, retried with backoff while the relay is unreachable or answers 4xx; enviado: the SMTP relay took the message; error: with the reason in detalle (a 5xx refusal, an address the service does not send to, or MAIL_MAX_ATTEMPTS spent). POST …/correo/reenviar sends it again.' }),
    destinatario: S.string({ description: 'The CorreoComprador it is sent to.' }),
    detalle: S.nullable(S.string()),
    enviadoEn: S.nullable({ ...S.dateTime(), description: 'When the relay took it (the last time, after a resend).' }),
    updatedAt: S.dateTime(),
  })),
  description: 'The e-CF e-mailed to its buyer with its PDF and signed XML; null when no e-mail was ever queued (the tenant does not send e-mail, the e-CF names no CorreoComprador, or DGII has not accepted it).',
};

export const EMAIL_SETTINGS: Schema = S.object({
  enabled: S.bool(),
  replyTo: S.nullable(S.string({ description: 'Reply-To of the e-mails; the From is the operator\'s MAIL_FROM with the issuer\'s name.' })),
  smtpConfigured: { ...S.bool(), description: 'Whether this service has an SMTP relay (SMTP_URL, MAIL_FROM); without one nothing is sent whatever `enabled` says.' },
  updatedAt: S.nullable(S.dateTime()),
});

const EMAIL_UPDATE_EVENT: Schema = S.object({
  event: S.string({ const: 'ecf.email_update' }),
  internalTrackId: S.uuid(),
  encf: S.string(),
  environment: S.string(),
  correo: S.ref('DocumentEmail'),
  timestamp: S.string({ format: 'date-time' }),
  sequence: S.int({ minimum: 1, description: 'The document\'s event number, shared with its ecf.status_update, ecf.receptor_update and ecf.commercial_approval events.' }),
});

export const EMAIL_SCHEMAS: Record<string, Schema> = {
  DocumentEmail: DOCUMENT_EMAIL,
  EmailSettings: EMAIL_SETTINGS,
  EmailUpdateEvent: EMAIL_UPDATE_EVENT,
};
