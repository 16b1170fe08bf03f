import { S, envelope, type ResponseDoc } from '../http/openapi.ts';
import { envOf } from '../http/params.ts';
import { header, type RequestContext, type Route } from '../http/types.ts';
import { ok } from '../http/reply.ts';
import { RECEIVER_BODY_LIMITS, type ReceiverService } from './service.ts';
import type { SenderAuth } from './sender-auth.ts';
import { uploadedXml } from './upload.ts';
import { tokenJson, tokenXml, wantsXml } from './token-reply.ts';

// The receiver group: the paths DGII fixes below the base URL each taxpayer registers in
// DGII's directory, here {base_url}/{env}/receptor/{rnc}. Other taxpayers' software calls
// them, so they answer as DGII's services do (seed XML, bare token JSON, signed ARECF).
// The tenant is named by the path, not by credentials: the rate limit is keyed on the RNC
// (one tenant per RNC), and the sender's Bearer token is checked here, not by the server.
// Before that bucket, each request takes one from its client IP's: one address cannot spend
// a tenant's budget on its own, and RNCs no tenant has (each a query) count there too. A
// sender whose token proves to be valid gets its IP's token back, so a busy sender is bound
// by the tenant's budget only, and the per-IP one counts what anybody can send.

export interface ReceiverRouteDeps {
  receiver: ReceiverService;
  auth: SenderAuth;
  /** Added to the request deadline: the sender's CRLs may be downloaded on the way (RECEIVER_CRL_TIMEOUT_MS each). */
  crlWaitMs: number;
}

const BASE = '/{env}/receptor/{rnc}/fe';
const TAGS = ['Receptor'];
const XML_CONTENT = 'application/xml; charset=utf-8';
const ERR = (description: string): ResponseDoc => ({ description, schema: S.ref('ErrorEnvelope') });
const BEARER = { Authorization: { description: 'Bearer <token> from POST …/fe/autenticacion/api/validacioncertificado.', schema: S.string(), required: true } };
const NO_RECEIVER = ERR('NOT_FOUND: unknown environment, or no tenant has this RNC.');
const TOO_LARGE = (bytes: number) => ERR(`PAYLOAD_TOO_LARGE: the body exceeds ${bytes / 1024 >= 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`}.`);
const UNTRUSTED = (what: string) => ERR(`SIGNER_NOT_TRUSTED: ${what}; in eCF without RECEIVER_TRUSTED_CA_FILE, every sender.`);
const REVOCATION_UNKNOWN = ERR('CERTIFICATE_REVOCATION_UNKNOWN (eCF only): a CRL the signer\'s chain names could not be fetched or used, so its revocation status is unknown; retry later (Retry-After). In TesteCF and CerteCF such a signer is accepted and marked untrusted.');
const UPLOAD = (what: string) => ({ schema: S.ref('ReceiverUpload'), contentType: 'multipart/form-data', description: `${what} in the field "xml".` });

// Every /fe/* route takes the receiverIp scope first. Then two budgets per tenant the path
// names, so that requests nobody vouches for cannot spend what senders with a valid token
// need: the authentication steps take `receiverAnonymous` before they run; an upload takes
// `receiver` once its token proved valid, or `receiverAnonymous` when it did not.
const rncKey = (ctx: RequestContext) => `rnc:${ctx.params.rnc ?? ''}`;
const GROUP = {
  auth: 'none',
  ipRateScope: 'receiverIp',
} as const satisfies Partial<Route>;
const ANONYMOUS = { ...GROUP, rateScope: 'receiverAnonymous', rateKey: rncKey } as const satisfies Partial<Route>;
const UPLOAD_LIMITS = ' Limits: receiverIp per client address (given back once the token proves valid), then the tenant\'s `receiver` budget with a valid token, or its `receiverAnonymous` budget without one.';


export function receiverRoutes(deps: ReceiverRouteDeps): Route[] {
  const { receiver, auth } = deps;
  const extraDeadlineMs = deps.crlWaitMs;
  const tenantOf = (ctx: RequestContext) => receiver.tenant(ctx.params.rnc ?? '');
  // The token's row is kept: whose certificate earned it is checked against the e-CF's emisor.
  const sender = async (ctx: RequestContext) => {
    let tenant: Awaited<ReturnType<typeof tenantOf>>;
    let token: Awaited<ReturnType<typeof auth.authenticate>>;
    try {
      tenant = await tenantOf(ctx);
      token = await auth.authenticate(tenant, envOf(ctx), header(ctx.headers, 'authorization'));
    } catch (err) {
      ctx.takeLimit('receiverAnonymous', rncKey(ctx));
      throw err;
    }
    ctx.takeLimit('receiver', rncKey(ctx));
    ctx.refundIpLimit();
    return { tenant, holderId: token.holderId };
  };
  return [
    {
      ...ANONYMOUS, extraDeadlineMs, method: 'GET', path: `${BASE}/autenticacion/api/semilla`,
      doc: {
        operationId: 'receiverSeed', tags: TAGS, summary: 'A seed to sign (receiver authentication, step 1)',
        description: 'DGII\'s seed document for this receiver: sign it (enveloped XMLDSig, DGII profile) with your certificate and send it to validacioncertificado within 5 minutes. Each seed is good for one attempt.',
        responses: { '200': { description: '<SemillaModel><valor>…</valor><fecha>…</fecha></SemillaModel>', contentType: 'application/xml', schema: S.string() }, '404': NO_RECEIVER },
      },
      handler: async (ctx) => ({ status: 200, raw: { data: await auth.seed(await tenantOf(ctx), envOf(ctx)), contentType: XML_CONTENT } }),
    },
    {
      ...ANONYMOUS, extraDeadlineMs, method: 'POST', path: `${BASE}/autenticacion/api/validacioncertificado`, body: 'raw', bodyLimit: RECEIVER_BODY_LIMITS.signedSeed,
      doc: {
        operationId: 'receiverValidateCertificate', tags: TAGS, summary: 'Exchange a signed seed for a token (step 2)',
        description: 'The seed must have been issued by this receiver for this environment, unused and unexpired; the signature must verify with a certificate (in the signature) that is valid now, RSA of at least 2048 bits. With RECEIVER_TRUSTED_CA_FILE that certificate must chain (through any intermediates in X509Data) to one of its CAs, with a signing KeyUsage and not revoked; without it, eCF refuses every sender and TesteCF/CerteCF accept any. The token is valid for one hour, for this receiver and environment only.',
        requestBody: UPLOAD('The signed seed'),
        responses: {
          '200': { description: 'A token (DGII\'s shape, no envelope); dates yyyy-MM-ddTHH:mm:ssZ. With Accept: application/xml (or text/xml) before any JSON type, DGII\'s XML form <RespuestaAutenticacion><token/><expira/><expedido/></RespuestaAutenticacion>.', schema: S.ref('ReceiverToken') },
          '400': ERR('INVALID_REQUEST: not multipart, no "xml" part, a bad signature, or a seed that is unknown, expired or used.'),
          '401': ERR('UNAUTHORIZED: the certificate is expired, not yet valid or too weak.'),
          '403': UNTRUSTED('the certificate does not chain to a trusted CA, is revoked, or its chain is invalid'),
          '404': NO_RECEIVER,
          '413': TOO_LARGE(RECEIVER_BODY_LIMITS.signedSeed),
          '503': REVOCATION_UNKNOWN,
        },
      },
      handler: async (ctx) => {
        const tenant = await tenantOf(ctx);
        const signed = uploadedXml(ctx.headers, ctx.rawBody, RECEIVER_BODY_LIMITS.signedSeed);
        const answer = await auth.validate(tenant, envOf(ctx), signed, RECEIVER_BODY_LIMITS.signedSeed);
        const accept = ctx.headers.accept;
        return wantsXml(Array.isArray(accept) ? accept.join(',') : accept ?? null) ? { status: 200, raw: { data: tokenXml(answer), contentType: XML_CONTENT } } : { status: 200, body: tokenJson(answer) };
      },
    },
    {
      ...GROUP, extraDeadlineMs, method: 'POST', path: `${BASE}/recepcion/api/ecf`, body: 'raw', bodyLimit: RECEIVER_BODY_LIMITS.ecf,
      doc: {
        operationId: 'receiverReceiveEcf', tags: TAGS, summary: 'Receive an e-CF from another taxpayer',
        description: 'Answers an ARECF signed with this tenant\'s certificate: Estado 0 (recibido; stored, listed under documentos-recibidos, ecf.received event) or Estado 1 (no recibido) with CodigoMotivoNoRecibido 1 specification (XSD, or a type DGII\'s v1.6 table does not exchange between taxpayers: 32, 41, 43, 45, 46, 47), 2 signature (or the signer\'s certificate: not valid at reception, whatever FechaHoraFirma says, not of RNCEmisor, not chained to a trusted CA or revoked; or a token obtained with a certificate not of RNCEmisor), 3 duplicate (same RNCEmisor and eNCF already received), 4 RNCComprador is not this tenant. Checked in the order 2, 1, 4, 3.' + UPLOAD_LIMITS,
        headers: BEARER,
        requestBody: UPLOAD('The signed e-CF'),
        responses: {
          '200': { description: 'The signed ARECF, whether Estado is 0 or 1.', contentType: 'application/xml', schema: S.string() },
          '400': ERR('INVALID_REQUEST: not multipart or no "xml" part, or a document that cannot be acknowledged (not XML, not an <ECF>, or without a readable RNCEmisor and eNCF).'),
          '401': ERR('UNAUTHORIZED: no token, or one that is expired or was issued by another receiver or environment.'),
          '404': NO_RECEIVER,
          '403': ERR('SIGNER_NOT_TRUSTED: eCF without RECEIVER_TRUSTED_CA_FILE refuses every sender (otherwise an untrusted signer gets an ARECF with motivo 2).'),
          '409': ERR('CONFLICT: this tenant has no valid certificate to sign the ARECF; nothing was received. Retrying will not help until the tenant uploads one.'),
          '413': TOO_LARGE(RECEIVER_BODY_LIMITS.ecf),
          '503': REVOCATION_UNKNOWN,
        },
      },
      handler: async (ctx) => {
        const { tenant, holderId } = await sender(ctx);
        const upload = uploadedXml(ctx.headers, ctx.rawBody, RECEIVER_BODY_LIMITS.ecf);
        return { status: 200, raw: { data: await receiver.receiveEcf(tenant, envOf(ctx), upload, holderId), contentType: XML_CONTENT } };
      },
    },
    {
      ...GROUP, extraDeadlineMs, method: 'POST', path: `${BASE}/aprobacioncomercial/api/ecf`, body: 'raw', bodyLimit: RECEIVER_BODY_LIMITS.acecf,
      doc: {
        operationId: 'receiverCommercialApproval', tags: TAGS, summary: 'Receive a commercial approval (ACECF) of an e-CF this tenant issued',
        description: 'The buyer of an e-CF this tenant issued approves (Estado 1) or rejects (Estado 2) it. The ACECF must be signed, valid against DGII\'s schema, name this tenant as RNCEmisor and match the issued e-CF (eNCF, RNCComprador, FechaEmision, MontoTotal). One per e-CF; sending the same one again is answered as the first.' + UPLOAD_LIMITS,
        headers: BEARER,
        requestBody: UPLOAD('The signed ACECF'),
        responses: {
          '200': { description: 'Stored.', schema: envelope(S.object({ encf: S.string(), estado: S.int({ enum: [1, 2] }) })) },
          '400': ERR('INVALID_REQUEST: with a message saying why the approval was not taken.'),
          '401': ERR('UNAUTHORIZED: no token, or one that is expired or was issued by another receiver or environment.'),
          '403': UNTRUSTED('the certificate that signed the ACECF does not chain to a trusted CA or is revoked'),
          '404': NO_RECEIVER,
          '413': TOO_LARGE(RECEIVER_BODY_LIMITS.acecf),
          '503': REVOCATION_UNKNOWN,
        },
      },
      handler: async (ctx) => {
        const { tenant } = await sender(ctx);
        const upload = uploadedXml(ctx.headers, ctx.rawBody, RECEIVER_BODY_LIMITS.acecf);
        return ok(await receiver.receiveApproval(tenant, envOf(ctx), upload));
      },
    },
  ];
}
