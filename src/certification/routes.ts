import { AppError } from '../errors.ts';
import { zipStream } from '../lib/zip/index.ts';
import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { PAGE_QUERY_DOCS, pageResponse, readPage } from '../http/paging.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import { header, type RequestContext, type Route } from '../http/types.ts';
import { MAX_PORTAL_DOCUMENT_BYTES } from './portal-documents.ts';
import type { CertificationService } from './service.ts';
import { MAX_SET_BYTES, type TestSets } from './test-sets.ts';

// DGII's certification portal: progress, the portal documents the service signs and the steps
// the taxpayer marks. Signed-in users only (the dashboard's session): an API key serves
// integrations, not a person putting the tenant's signature on a document.

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });
const TAGS = ['Certificación'];
const XML_CONTENT = 'application/xml; charset=utf-8';

/** The signed-in user; 403 when an API key came along (the key may not act for a person). */
function userOf(ctx: RequestContext): number {
  if (header(ctx.headers, 'x-api-key') !== undefined) throw new AppError('FORBIDDEN', 'Portal documents and certification steps are handled by a signed-in user of the tenant, never with an API key');
  const userId = ctx.principal?.userId ?? null;
  if (userId === null) throw new AppError('UNAUTHORIZED', 'Sign in: this requires an Authorization: Bearer token of a user');
  return userId;
}

export function certificationRoutes(deps: { certification: CertificationService; sets: TestSets }): Route[] {
  const { certification, sets } = deps;
  return [
    {
      method: 'POST', path: '/{env}/certificacion/set', auth: 'bearer', rateScope: 'sensitive', body: 'raw', bodyLimit: MAX_SET_BYTES,
      doc: {
        operationId: 'importCertificationSet', tags: TAGS, summary: 'Import DGII\'s test set (its .xlsx workbook, or the same cases as CSV)',
        description: 'Each sheet (or the CSV file) whose header row has TipoeCF is read as e-CF cases, one per row, the columns named as DGII\'s workbook names them (the XML elements, repeated ones numbered: NumeroLinea[1]); one with RNCEmisor, eNCF, Estado and RNCComprador as commercial approvals. "#e" is an empty cell. Every case is validated (the e-CF as POST /{env}/documentos-ecf would, with the eNCF the set prescribes and this tenant as emisor; the approvals as POST /{env}/aprobaciones-comerciales) before anything is stored: one invalid case and the answer is 422 naming each case\'s problems. A new import replaces the set of the environment; e-CF already emitted are found again by their eNCF when it runs. Test sets go to CerteCF (or TesteCF to rehearse): in eCF the answer is 409.',
        requestBody: { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', schema: { type: 'string', format: 'binary' } },
        responses: {
          '201': { description: 'The set and its cases, in the order they go.', schema: envelope(S.ref('CertificationSet')) },
          '409': ERR('CONFLICT: the environment is eCF (production).'),
          '413': ERR(`PAYLOAD_TOO_LARGE: over ${MAX_SET_BYTES / 1024 / 1024} MiB.`),
          '422': ERR('VALIDATION_ERROR: the file cannot be read (damaged workbook, zip bomb, not UTF-8 CSV), no case was found, or cases are not valid (path "<case>: <field>").'),
        },
      },
      handler: async (ctx) => {
        userOf(ctx);
        const name = header(ctx.headers, 'x-nombre-archivo');
        const origen = name !== undefined && /^[\p{L}\p{N} ._()-]{1,120}$/u.test(name) ? name : 'Set de pruebas';
        return ok(await sets.import(tenantOf(ctx), envOf(ctx), ctx.rawBody, origen), 201);
      },
    },
    {
      method: 'GET', path: '/{env}/certificacion/set', auth: 'bearer',
      doc: {
        operationId: 'getCertificationSet', tags: TAGS, summary: 'The imported test set, its cases and where each stands',
        responses: { '200': { description: 'The set; null when none was imported in this environment.', schema: envelope(S.nullable(S.ref('CertificationSet'))) } },
      },
      handler: async (ctx) => {
        userOf(ctx);
        return ok(await sets.find(tenantOf(ctx), envOf(ctx)));
      },
    },
    {
      method: 'GET', path: '/{env}/certificacion/set/revision.zip', auth: 'bearer',
      doc: {
        operationId: 'downloadCertificationReview', tags: TAGS, summary: 'One ZIP with the PDF and signed XML of each of the set\'s e-CF, for DGII\'s printed-representation review',
        responses: {
          '200': { description: 'A ZIP: {eNCF}.pdf and {eNCF}.xml per e-CF, and LEAME.txt listing them.', contentType: 'application/zip', schema: { type: 'string', format: 'binary' } },
          '404': ERR('NOT_FOUND: no set imported in this environment.'),
          '409': ERR('CONFLICT: no e-CF of the set is signed yet.'),
        },
      },
      handler: async (ctx) => {
        userOf(ctx);
        const entries = await sets.reviewEntries(tenantOf(ctx), envOf(ctx));
        return {
          status: 200,
          stream: { source: zipStream(entries), contentType: 'application/zip' },
          headers: { 'content-disposition': `attachment; filename="revision-representacion-impresa-${envOf(ctx)}.zip"` },
        };
      },
    },
    {
      method: 'POST', path: '/{env}/certificacion/set/enviar', auth: 'bearer', body: 'optionalJson',
      doc: {
        operationId: 'runCertificationSet', tags: TAGS, summary: 'Send the test set on: take DGII\'s answers so far and send what may go now',
        description: 'In DGII\'s order, one phase after the other: the type 32 under RD$250,000 (sent as RFCE), the other e-CF, the debit and credit notes (once the documents they modify are accepted), the commercial approvals. Each call takes in the verdicts that arrived and sends the next phase when the current one is accepted; call it again until every case is aceptado. A rejected case stops the set there, with DGII\'s reason in its detalle. Running it again resumes: a case already emitted is found by its eNCF and not emitted twice.',
        responses: { '200': { description: 'The set as it now stands.', schema: envelope(S.ref('CertificationSet')) }, '404': ERR('NOT_FOUND: no set imported in this environment.'), '409': ERR('CONFLICT: the environment is eCF (production).') },
      },
      handler: async (ctx) => {
        userOf(ctx);
        return ok(await sets.run(tenantOf(ctx), envOf(ctx)));
      },
    },
    {
      method: 'GET', path: '/{env}/certificacion', auth: 'bearer',
      doc: {
        operationId: 'getCertificationProgress', tags: TAGS, summary: 'Where the tenant stands in each step of DGII\'s certification portal',
        description: 'One entry per portal step, in the portal\'s order, with estado (pendiente, en_curso, completado, error), what is left (faltante) and origen: servicio when the service knows it (the signed postulación, the imported test set, e-CF its receiver got), marcado when the taxpayer marked it with PUT /{env}/certificacion/pasos/{clave}, portal when nothing is known yet. A fact the service has wins over a mark.',
        responses: { '200': { description: 'The steps.', schema: envelope(S.ref('CertificationProgress')) } },
      },
      handler: async (ctx) => {
        userOf(ctx);
        return ok(await certification.progress(tenantOf(ctx), envOf(ctx)));
      },
    },
    {
      method: 'PUT', path: '/{env}/certificacion/pasos/{paso}', auth: 'bearer', body: 'json',
      doc: {
        operationId: 'markCertificationStep', tags: TAGS, summary: 'Mark where a step of DGII\'s portal stands (what only the portal knows)',
        requestBody: { schema: { type: 'object', additionalProperties: false, required: ['estado'], properties: { estado: S.string({ enum: ['pendiente', 'en_curso', 'completado', 'error'] }), nota: S.string({ maxLength: 500 }) } } },
        responses: {
          '200': { description: 'The step as it now stands.', schema: envelope(S.ref('CertificationStep')) },
          '403': ERR('FORBIDDEN: an API key was sent.'),
          '404': ERR('NOT_FOUND: no such step.'),
          '422': ERR('VALIDATION_ERROR: estado or nota not valid.'),
        },
      },
      handler: async (ctx) => ok(await certification.mark(tenantOf(ctx), userOf(ctx), envOf(ctx), ctx.params.paso ?? '', ctx.body)),
    },
    {
      method: 'POST', path: '/{env}/certificacion/firmar', auth: 'bearer', rateScope: 'sensitive', body: 'raw', bodyLimit: MAX_PORTAL_DOCUMENT_BYTES,
      doc: {
        operationId: 'signPortalDocument', tags: TAGS, summary: 'Sign a document DGII\'s certification portal hands out for signature (the postulación)',
        description: 'The body is the XML file as DGII\'s portal gave it. It is recognised by its root element and structure from an allow-list (today: Postulacion) and must name this tenant\'s RNC; it is signed with the tenant\'s certificate (enveloped XMLDSig, RSA-SHA256, as DGII requires) and answered as XML, ready to upload to the portal. Every signature is logged (who, when, which document) and listed by GET /{env}/certificacion/firmas. Signed-in users only: an API key is refused.',
        requestBody: { contentType: 'application/xml', schema: S.string() },
        responses: {
          '200': { description: 'The signed document; X-Firma-Id names its log entry.', contentType: 'application/xml', schema: S.string() },
          '401': ERR('UNAUTHORIZED: no bearer token of a signed-in user.'),
          '403': ERR('FORBIDDEN: an API key was sent.'),
          '409': ERR('CONFLICT: the tenant has no valid certificate.'),
          '413': ERR(`PAYLOAD_TOO_LARGE: over ${MAX_PORTAL_DOCUMENT_BYTES / 1024} KiB.`),
          '422': ERR('VALIDATION_ERROR: not a portal document this service signs (another root element, an element or value outside DGII\'s structure, already signed, another taxpayer\'s RNC, not well-formed).'),
        },
      },
      handler: async (ctx) => {
        const userId = userOf(ctx);
        const signed = await certification.sign(tenantOf(ctx), userId, envOf(ctx), ctx.rawBody);
        return {
          status: 200,
          raw: { data: signed.xml, contentType: XML_CONTENT },
          headers: { 'x-firma-id': signed.id, 'content-disposition': `attachment; filename="${signed.fileName}"` },
        };
      },
    },
    {
      method: 'GET', path: '/{env}/certificacion/firmas', auth: 'bearer',
      doc: {
        operationId: 'listPortalSignatures', tags: TAGS, summary: 'The log of portal documents signed for the tenant, newest first',
        query: { ...PAGE_QUERY_DOCS },
        responses: { '200': pageResponse('PortalSignature'), '403': ERR('FORBIDDEN: an API key was sent.') },
      },
      handler: async (ctx) => {
        userOf(ctx);
        const q = new Query(ctx.query);
        const { pageSize, after } = readPage(q);
        q.done();
        return ok(await certification.signatures(tenantOf(ctx), after, pageSize));
      },
    },
    {
      method: 'GET', path: '/{env}/certificacion/firmas/{id}', auth: 'bearer',
      doc: {
        operationId: 'getSignedPortalDocument', tags: TAGS, summary: 'A signed portal document, as it was given back',
        responses: { '200': { description: 'Signed XML.', contentType: 'application/xml', schema: S.string() }, '404': ERR('NOT_FOUND: no such signature for this tenant.') },
      },
      handler: async (ctx) => {
        userOf(ctx);
        return { status: 200, raw: { data: await certification.signedXml(tenantOf(ctx), uuidParam(ctx, 'id')), contentType: XML_CONTENT } };
      },
    },
  ];
}
