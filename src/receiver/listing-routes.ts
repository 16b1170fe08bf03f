import { ECF_TIPOS } from '../ecf/ecf-types.ts';
import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { DATE_RANGE_QUERY_DOCS, PAGE_QUERY_DOCS, pageResponse, readPage } from '../http/paging.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import type { ReceivedDocuments } from './received-documents.ts';
import type { ReceiverSettings } from './settings.ts';
import { pdfReply, PRINT_QUERY_DOCS, readPrintFormat } from '../documents/pdf-reply.ts';

// The tenant's own view of the e-CF its receiver accepted. These are ordinary API routes
// (the tenant's credentials, the default rate scope), not part of the /fe/* group.

const TAGS = ['Receptor'];
const XML_CONTENT = 'application/xml; charset=utf-8';
const PATH = '/{env}/documentos-recibidos';


export function receivedDocumentRoutes(received: ReceivedDocuments, settings: ReceiverSettings): Route[] {
  const xmlRoute = (which: 'ecf' | 'arecf' | 'acecf', suffix: string, operationId: string, summary: string): Route => ({
    method: 'GET', path: `${PATH}/{id}/${suffix}`, auth: 'apiKeyOrBearer',
    doc: {
      operationId, tags: TAGS, summary,
      responses: {
        '200': { description: 'Signed XML, byte for byte as signed.', contentType: 'application/xml', schema: S.string() },
        '404': { description: `NOT_FOUND: no such received document for this tenant and environment${which === 'acecf' ? ', or no commercial approval was decided on it' : ''}.`, schema: S.ref('ErrorEnvelope') },
      },
    },
    handler: async (ctx) => ({
      status: 200,
      raw: { data: await received.xml(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'), which), contentType: XML_CONTENT },
    }),
  });
  return [
    {
      method: 'GET', path: PATH, auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listReceivedDocuments', tags: TAGS, summary: 'e-CF received from other taxpayers, newest first',
        query: {
          rncEmisor: { description: 'Only from this emisor.', schema: S.string({ pattern: '^(\\d{9}|\\d{11})$' }) },
          tipo: { description: 'Only this e-CF type.', schema: S.int({ enum: [...ECF_TIPOS] }) },
          encf: { description: 'Exactly this eNCF.', schema: S.string({ pattern: '^E\\d{12}$' }) },
          ...DATE_RANGE_QUERY_DOCS,
          ...PAGE_QUERY_DOCS,
        },
        responses: {
          '200': pageResponse('ReceivedDocumentSummary'),
          '422': { description: 'VALIDATION_ERROR: a filter value or parameter is not valid.', schema: S.ref('ErrorEnvelope') },
        },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const rncEmisor = q.string('rncEmisor', { pattern: /^(\d{9}|\d{11})$/, message: 'must be an RNC (9 digits) or cédula (11 digits)' });
        const tipo = q.oneOf('tipo', ECF_TIPOS);
        const encf = q.string('encf', { pattern: /^E\d{12}$/, message: 'must be E followed by 12 digits' });
        const desde = q.date('desde');
        const hasta = q.date('hasta');
        const { pageSize, after } = readPage(q);
        q.done();
        return ok(await received.list({ tenantId: tenantOf(ctx), environment: envOf(ctx), rncEmisor, tipo, encf, desde, hasta, after, pageSize }));
      },
    },
    {
      method: 'GET', path: `${PATH}/{id}`, auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getReceivedDocument', tags: TAGS, summary: 'A received e-CF with its content as JSON',
        responses: { '200': { description: 'The document.', schema: envelope(S.ref('ReceivedDocumentDetail')) } },
      },
      handler: async (ctx) => ok(await received.get(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'))),
    },
    xmlRoute('ecf', 'xml', 'getReceivedDocumentXml', 'The received e-CF, signed, exactly as the sender uploaded it'),
    xmlRoute('arecf', 'arecf', 'getReceivedDocumentArecf', 'The signed ARECF (Estado 0) this receiver answered it with'),
    xmlRoute('acecf', 'acecf', 'getReceivedDocumentAcecf', 'The signed commercial approval (ACECF) this tenant sent about it'),
    {
      method: 'GET', path: '/api/receptor/settings', auth: 'bearer',
      doc: { operationId: 'getReceiverSettings', tags: TAGS, summary: 'The tenant\'s choices as a receiver of e-CF', responses: { '200': { description: 'Settings.', schema: envelope(S.ref('ReceiverSettings')) } } },
      handler: async (ctx) => ok(await settings.get(tenantOf(ctx))),
    },
    {
      method: 'PUT', path: '/api/receptor/settings', auth: 'bearer', body: 'json',
      doc: {
        operationId: 'putReceiverSettings', tags: TAGS, summary: 'Set the tenant\'s choices as a receiver of e-CF',
        description: 'rechazarDesconocidosDgii: when DGII\'s Consulta Estado does not know a received e-CF (verificacionDgii.estado no_encontrado, after the retries), reject it automatically with a signed ACECF (Estado 2) sent to the emisor and to DGII, as POST …/aprobacion would. Off by default.',
        requestBody: { schema: S.ref('ReceiverSettings') },
        responses: { '200': { description: 'The saved settings.', schema: envelope(S.ref('ReceiverSettings')) }, '422': { description: 'VALIDATION_ERROR: not a boolean, or another field.', schema: S.ref('ErrorEnvelope') } },
      },
      handler: async (ctx) => ok(await settings.update(tenantOf(ctx), ctx.body)),
    },
    {
      method: 'GET', path: `${PATH}/{id}/pdf`, auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getReceivedDocumentPdf', tags: TAGS, summary: 'The printed representation (PDF) of a received e-CF',
        description: 'The same printed representation as for issued documents, with the QR code of the timbre URL rebuilt from the received XML.',
        query: PRINT_QUERY_DOCS,
        responses: {
          '200': { description: 'The PDF, shown inline, named {RNCEmisor}{eNCF}.pdf.', contentType: 'application/pdf', schema: S.string({ format: 'binary' }), headers: { 'Content-Disposition': { description: 'inline; filename="{RNCEmisor}{eNCF}.pdf"', schema: S.string() } } },
          '404': { description: 'NOT_FOUND: no such received document for this tenant and environment.', schema: S.ref('ErrorEnvelope') },
          '422': { description: 'VALIDATION_ERROR: formato is not one of carta, a4, ticket80, or another query parameter was given.', schema: S.ref('ErrorEnvelope') },
        },
      },
      handler: async (ctx) => pdfReply(await received.printed(tenantOf(ctx), envOf(ctx), uuidParam(ctx, 'id'), readPrintFormat(ctx.query))),
    },
  ];
}
