import { dgiiTokenDate } from '../../lib/dates.ts';
import { certificateProblem, describeCertificate } from '../../certificates/check.ts';
import { seedModelXml } from '../../ecf/xml/seed.ts';
import { textAt, verifyXml } from '../../xml/index.ts';
import type { Handler } from './context.ts';
import { errorReply, jsonReply, uploadedXml } from './http.ts';

// Authentication as DGII does it: a random single-use seed, which the taxpayer signs with
// its certificate and sends back; a valid signature over an unused seed by an acceptable
// certificate earns a token bound to the certificate holder's RNC or cédula.

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
  // DGII writes whole seconds: expedido is cut to its second and expira shown as that plus the
  // lifetime, cut too, so the lifetime a client reads (expira − expedido) never exceeds the real one.
  const shown = Math.floor(expedido.getTime() / 1000) * 1000;
  return jsonReply(200, { token, expira: dgiiTokenDate(new Date(shown + expira.getTime() - expedido.getTime())), expedido: dgiiTokenDate(new Date(shown)) });
};
