import type { X509Certificate } from 'node:crypto';
import { describeCertificate, MIN_RSA_BITS } from '../../certificates/check.ts';
import { el, serializeXml, textAt, verifyXml } from '../../xml/index.ts';
import type { Handler } from './context.ts';
import { errorReply, jsonReply, uploadedXml } from './http.ts';
import { santoDomingoTimestamp } from './time.ts';

// Authentication as DGII does it: a random single-use seed, which the taxpayer signs with
// its certificate and sends back; a valid signature over an unused seed by an acceptable
// certificate earns a token bound to the certificate holder's RNC or cédula.

// The same rules as checkSigningCertificate, which needs the private key: the authority only
// ever sees the certificate. verifyXml has already refused RSA keys under MIN_RSA_BITS; the
// check stays here so the rule is visible where certificates are accepted.
export function certificateProblem(certificate: X509Certificate, now: Date): string | null {
  const key = certificate.publicKey;
  const bits = key.asymmetricKeyType === 'rsa' ? (key.asymmetricKeyDetails?.modulusLength ?? 0) : 0;
  if (bits < MIN_RSA_BITS) return `El certificado debe tener una llave RSA de al menos ${MIN_RSA_BITS} bits`;
  const { validFrom, validTo } = describeCertificate(certificate);
  if (validFrom > now) return `El certificado no es válido antes de ${validFrom.toISOString()}`;
  if (validTo <= now) return `El certificado venció el ${validTo.toISOString()}`;
  return null;
}

/** DGII's seed document: <SemillaModel><valor>…</valor><fecha>…</fecha></SemillaModel>. */
export function seedModelXml(valor: string, now: number): string {
  const seed = el(
    'SemillaModel',
    { 'xmlns:xsd': 'http://www.w3.org/2001/XMLSchema', 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance' },
    el('valor', valor),
    el('fecha', santoDomingoTimestamp(now)),
  );
  return serializeXml(seed, { declaration: true });
}

export const seedHandler: Handler = (ctx) => {
  const valor = ctx.env.issueSeed();
  ctx.state.counters.seedsIssued++;
  return { status: 200, xml: seedModelXml(valor, ctx.now) };
};

export const validateSeedHandler: Handler = (ctx) => {
  const upload = uploadedXml(ctx.req, ctx.body);
  if ('reply' in upload) return upload.reply;
  const verified = verifyXml(upload.file.data);
  if (!verified.valid) return errorReply(400, `La firma de la semilla no es válida: ${verified.reason}`);
  const root = verified.document.root;
  if (root.localName !== 'SemillaModel' || root.namespaceURI !== '') return errorReply(400, 'El documento firmado no es una semilla (SemillaModel)');
  const valor = (textAt(root, ['valor']) ?? '').trim();
  if (!ctx.env.consumeSeed(valor)) return errorReply(400, 'La semilla no es válida, expiró o ya fue utilizada');

  const problem = certificateProblem(verified.certificate, new Date(ctx.now));
  if (problem !== null) return errorReply(401, problem);
  const holderId = describeCertificate(verified.certificate).holderId;
  if (holderId === null) return errorReply(401, 'El certificado no identifica a su titular (RNC o cédula en el sujeto)');

  const { token, expedido, expira } = ctx.env.issueToken(holderId, ctx.now);
  ctx.state.counters.tokensIssued++;
  ctx.log.debug('token issued', { environment: ctx.environment, holderId });
  return jsonReply(200, { token, expira: expira.toISOString(), expedido: expedido.toISOString() });
};
