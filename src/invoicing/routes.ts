import { S, envelope } from '../http/openapi.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { Query } from '../http/query.ts';
import { ok } from '../http/reply.ts';
import { DRAFT_FORMATS } from '../ecf/print/draft.ts';
import { pdfReply } from '../documents/pdf-reply.ts';
import type { Route } from '../http/types.ts';
import { MAX_LISTED, MAX_SAVED, type InvoicingService } from './service.ts';

// Saved customers and items (per tenant, every environment), and the directory's name of an
// RNC: what the dashboard's "Nueva factura" form reads and writes besides the emit itself.

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });
const LIMIT = { description: `At most this many, 1–${MAX_LISTED} (default 200), ordered by name.`, schema: S.int({ minimum: 1, maximum: MAX_LISTED, default: 200 }) };
const Q = { description: 'Only those whose name (or RNC) contains this text, case-insensitively; at most 100 characters.', schema: S.string({ maxLength: 100 }) };

export function invoicingRoutes(deps: { invoicing: InvoicingService }): Route[] {
  const { invoicing } = deps;
  return [
    {
      method: 'GET', path: '/api/clientes', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listSavedCustomers', tags: ['Invoicing'], summary: 'Saved customers',
        query: { q: Q, rnc: { description: 'Only the customer with this RNC or cédula.', schema: S.string() }, limit: LIMIT },
        responses: { '200': { description: 'The customers.', schema: envelope(S.array(S.ref('SavedCustomer'))) }, '422': ERR('VALIDATION_ERROR: a parameter is not valid.') },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const filter = { q: q.string('q') ?? null, rnc: q.string('rnc') ?? null };
        const limit = q.int('limit', 200, 1, MAX_LISTED);
        q.done();
        return ok(await invoicing.customers(tenantOf(ctx), filter, limit));
      },
    },
    {
      method: 'POST', path: '/api/clientes', auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: 'saveCustomer', tags: ['Invoicing'], summary: 'Save a customer (or update the one with its RNC)',
        description: `One saved customer per RNC or cédula: saving an RNC already saved updates its name and e-mail (200) instead of creating one (201). At most ${MAX_SAVED} per tenant.`,
        requestBody: { schema: S.ref('SavedCustomerBody') },
        responses: {
          '200': { description: 'Updated.', schema: envelope(S.ref('SavedCustomer')) },
          '201': { description: 'Created.', schema: envelope(S.ref('SavedCustomer')) },
          '409': ERR(`CONFLICT: the tenant already has ${MAX_SAVED} saved customers.`),
          '422': ERR('VALIDATION_ERROR: an RNC of the wrong length or check digit, an empty name, a malformed e-mail.'),
        },
      },
      handler: async (ctx) => {
        const { customer, created } = await invoicing.saveCustomer(tenantOf(ctx), ctx.body);
        return ok(customer, created ? 201 : 200);
      },
    },
    {
      method: 'PUT', path: '/api/clientes/{id}', auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: 'updateCustomer', tags: ['Invoicing'], summary: 'Change a saved customer',
        requestBody: { schema: S.ref('SavedCustomerBody') },
        responses: { '200': { description: 'The customer.', schema: envelope(S.ref('SavedCustomer')) }, '409': ERR('CONFLICT: another saved customer has that RNC.'), '422': ERR('VALIDATION_ERROR.') },
      },
      handler: async (ctx) => ok(await invoicing.updateCustomer(tenantOf(ctx), uuidParam(ctx, 'id'), ctx.body)),
    },
    {
      method: 'DELETE', path: '/api/clientes/{id}', auth: 'apiKeyOrBearer',
      doc: { operationId: 'deleteCustomer', tags: ['Invoicing'], summary: 'Delete a saved customer', responses: { '200': { description: 'Deleted.', schema: envelope(S.object({ id: S.uuid(), deleted: S.bool() })) } } },
      handler: async (ctx) => ok(await invoicing.deleteCustomer(tenantOf(ctx), uuidParam(ctx, 'id'))),
    },
    {
      method: 'GET', path: '/api/articulos', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'listSavedItems', tags: ['Invoicing'], summary: 'Saved items',
        query: { q: Q, limit: LIMIT },
        responses: { '200': { description: 'The items.', schema: envelope(S.array(S.ref('SavedItem'))) }, '422': ERR('VALIDATION_ERROR: a parameter is not valid.') },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const filter = q.string('q') ?? null;
        const limit = q.int('limit', 200, 1, MAX_LISTED);
        q.done();
        return ok(await invoicing.items(tenantOf(ctx), filter, limit));
      },
    },
    {
      method: 'POST', path: '/api/articulos', auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: 'saveItem', tags: ['Invoicing'], summary: 'Save an item (or update the one with its description)',
        description: `One saved item per description: saving a description already saved updates its price, rate and kind (200) instead of creating one (201). At most ${MAX_SAVED} per tenant.`,
        requestBody: { schema: S.ref('SavedItemBody') },
        responses: {
          '200': { description: 'Updated.', schema: envelope(S.ref('SavedItem')) },
          '201': { description: 'Created.', schema: envelope(S.ref('SavedItem')) },
          '409': ERR(`CONFLICT: the tenant already has ${MAX_SAVED} saved items.`),
          '422': ERR('VALIDATION_ERROR.'),
        },
      },
      handler: async (ctx) => {
        const { item, created } = await invoicing.saveItem(tenantOf(ctx), ctx.body);
        return ok(item, created ? 201 : 200);
      },
    },
    {
      method: 'PUT', path: '/api/articulos/{id}', auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: 'updateItem', tags: ['Invoicing'], summary: 'Change a saved item',
        requestBody: { schema: S.ref('SavedItemBody') },
        responses: { '200': { description: 'The item.', schema: envelope(S.ref('SavedItem')) }, '409': ERR('CONFLICT: another saved item has that description.'), '422': ERR('VALIDATION_ERROR.') },
      },
      handler: async (ctx) => ok(await invoicing.updateItem(tenantOf(ctx), uuidParam(ctx, 'id'), ctx.body)),
    },
    {
      method: 'DELETE', path: '/api/articulos/{id}', auth: 'apiKeyOrBearer',
      doc: { operationId: 'deleteItem', tags: ['Invoicing'], summary: 'Delete a saved item', responses: { '200': { description: 'Deleted.', schema: envelope(S.object({ id: S.uuid(), deleted: S.bool() })) } } },
      handler: async (ctx) => ok(await invoicing.deleteItem(tenantOf(ctx), uuidParam(ctx, 'id'))),
    },
    {
      method: 'POST', path: '/{env}/documentos-ecf/borrador/pdf', auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: 'draftPdf', tags: ['Invoicing'], summary: 'Preview the printed representation of an e-CF before emitting it',
        description: 'Takes the body POST /{env}/documentos-ecf would take, without eNCF, validates it the same way (the same 422 details), and answers its printed representation marked on every page "BORRADOR — sin validez fiscal": no eNCF, no security code, no signature date, and a QR code holding those words instead of a verification link. Nothing is numbered, signed or stored.',
        query: { formato: { description: 'carta (US Letter, the default) or a4.', schema: S.string({ enum: [...DRAFT_FORMATS], default: 'carta' }) } },
        requestBody: { schema: S.ref('EcfBody') },
        responses: {
          '200': { description: 'The draft PDF, shown inline.', contentType: 'application/pdf', schema: S.string({ format: 'binary' }) },
          '422': ERR('VALIDATION_ERROR: what the emit would refuse, or an eNCF (a draft is never numbered).'),
        },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const format = q.oneOf('formato', DRAFT_FORMATS) ?? 'carta';
        q.done();
        return pdfReply(await invoicing.draftPdf(tenantOf(ctx), ctx.body, format));
      },
    },
    {
      method: 'GET', path: '/{env}/directorio/{rnc}', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'directoryName', tags: ['Invoicing'], summary: 'The name DGII\'s directory gives an RNC',
        description: 'Looks the RNC up in DGII\'s directory of electronic receivers through the tenant\'s own DGII session (so it needs a valid certificate), cached like the buyer deliveries\' lookups (DIRECTORY_CACHE_TTL_MS). `nombre` is null when DGII does not list the RNC.',
        responses: {
          '200': { description: 'The name, or null.', schema: envelope(S.ref('DirectoryName')) },
          '422': ERR('VALIDATION_ERROR: not an RNC or cédula with a right check digit, or a query parameter (it takes none).'),
          '503': ERR('SERVICE_UNAVAILABLE: DGII\'s directory could not be read (no valid certificate, or DGII did not answer).'),
        },
      },
      handler: async (ctx) => {
        new Query(ctx.query).done(); // it takes no query parameter: any is a 422
        return ok(await invoicing.directoryName(tenantOf(ctx), envOf(ctx), ctx.params.rnc ?? '', ctx.signal));
      },
    },
  ];
}
