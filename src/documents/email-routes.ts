// The e-CF e-mailed to its buyer: the tenant's settings and the resend.
import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import type { BuyerEmail } from './buyer-email.ts';

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });

export function emailRoutes(email: BuyerEmail): Route[] {
  return [
    {
      method: 'GET', path: '/api/email/settings', auth: 'bearer',
      doc: { operationId: 'getEmailSettings', tags: ['Documents'], summary: 'Whether accepted e-CF are e-mailed to their buyers, and the reply-to address', responses: { '200': { description: 'Settings.', schema: envelope(S.ref('EmailSettings')) } } },
      handler: async (ctx) => ok(await email.settings(tenantOf(ctx))),
    },
    {
      method: 'PUT', path: '/api/email/settings', auth: 'bearer', body: 'json',
      doc: {
        operationId: 'putEmailSettings', tags: ['Documents'], summary: 'Turn the e-mail to buyers on or off, and set its reply-to address',
        description: 'Fields left out keep their value; `replyTo: null` clears it. With `enabled` (off by default), each e-CF DGII accepts (aceptado or aceptado_condicional) that names a CorreoComprador is e-mailed to that address in Spanish, with its printed representation (PDF, carta) and its signed XML attached, From the operator\'s MAIL_FROM under the issuer\'s name and Reply-To `replyTo`. Needs the operator\'s SMTP relay (`smtpConfigured`). Documents accepted before it was turned on are not sent (POST …/correo/reenviar sends one).',
        requestBody: { schema: S.object({ enabled: S.bool(), replyTo: S.nullable(S.string({ format: 'email', maxLength: 254 })) }, []) },
        responses: { '200': { description: 'The saved settings.', schema: envelope(S.ref('EmailSettings')) }, '422': ERR('VALIDATION_ERROR: replyTo is not a plain mail address, or a field is unknown.') },
      },
      handler: async (ctx) => ok(await email.saveSettings(tenantOf(ctx), ctx.body)),
    },
    {
      method: 'POST', path: '/{env}/documentos-ecf/{internalTrackId}/correo/reenviar', auth: 'apiKeyOrBearer', rateScope: 'emit',
      doc: {
        operationId: 'resendEmailToBuyer', tags: ['Documents'], summary: 'E-mail a document to its buyer again',
        description: 'For a document DGII accepted that names a CorreoComprador, whatever its e-mail\'s outcome so far (enviado included, when the buyer lost it; or never sent, when the tenant turned e-mail on later): `correo.estado` goes back to `pendiente` (an ecf.email_update says so) and the e-mail is sent with a fresh retry budget, ending in enviado or error with its ecf.email_update. The tenant\'s `enabled` setting does not stop an explicit resend.',
        responses: {
          '202': { description: 'Queued; `estado` is `pendiente`.', schema: envelope(S.ref('DocumentEmail')) },
          '404': ERR('NOT_FOUND'),
          '409': ERR('CONFLICT: the service has no SMTP relay, DGII has not accepted the document, it names no CorreoComprador, or an e-mail of it is already pending.'),
        },
      },
      handler: async (ctx) => ({ status: 202, body: { success: true, data: await email.resend(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'internalTrackId')) } }),
    },
  ];
}
