import { S, envelope, type ParamDoc } from '../http/openapi.ts';
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

/**
 * What the saved customers and the saved items differ in: their path, their names (in the
 * operation ids, schemas and the docs' sentences), how the list is filtered, the service's calls,
 * and the docs' sentences that are not the same with the noun swapped.
 */
interface SavedStore<F> {
  /** The collection; one record is `${path}/{id}`. */
  path: string;
  /** `Customer` names listSavedCustomers, saveCustomer, … and the schemas SavedCustomer and SavedCustomerBody. */
  name: string;
  /** The docs' nouns: 'customer' and 'customers'. */
  one: string;
  many: string;
  listQuery: Record<string, ParamDoc>;
  /** Reads the list's filter from its query (before `limit`). */
  filter(q: Query): F;
  list(tenantId: number, filter: F, limit: number): Promise<unknown>;
  /** Creates the record, or updates the one with the same key (`created` false). */
  save(tenantId: number, body: unknown): Promise<{ record: unknown; created: boolean }>;
  update(tenantId: number, id: string, body: unknown): Promise<unknown>;
  remove(tenantId: number, id: string): Promise<unknown>;
  saveDoc: { summary: string; description: string; invalid: string };
  /** The 409 of an update: another record has the key. */
  updateConflict: string;
}

/** A saved store's routes: list, save (create or update by key), change and delete one. */
function savedStoreRoutes<F>(store: SavedStore<F>): Route[] {
  const record = S.ref(`Saved${store.name}`);
  const body = { schema: S.ref(`Saved${store.name}Body`) };
  return [
    {
      method: 'GET', path: store.path, auth: 'apiKeyOrBearer',
      doc: {
        operationId: `listSaved${store.name}s`, tags: ['Invoicing'], summary: `Saved ${store.many}`,
        query: store.listQuery,
        responses: { '200': { description: `The ${store.many}.`, schema: envelope(S.array(record)) }, '422': ERR('VALIDATION_ERROR: a parameter is not valid.') },
      },
      handler: async (ctx) => {
        const q = new Query(ctx.query);
        const filter = store.filter(q);
        const limit = q.int('limit', 200, 1, MAX_LISTED);
        q.done();
        return ok(await store.list(tenantOf(ctx), filter, limit));
      },
    },
    {
      method: 'POST', path: store.path, auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: `save${store.name}`, tags: ['Invoicing'], summary: store.saveDoc.summary,
        description: store.saveDoc.description,
        requestBody: body,
        responses: {
          '200': { description: 'Updated.', schema: envelope(record) },
          '201': { description: 'Created.', schema: envelope(record) },
          '409': ERR(`CONFLICT: the tenant already has ${MAX_SAVED} saved ${store.many}.`),
          '422': ERR(store.saveDoc.invalid),
        },
      },
      handler: async (ctx) => {
        const { record: saved, created } = await store.save(tenantOf(ctx), ctx.body);
        return ok(saved, created ? 201 : 200);
      },
    },
    {
      method: 'PUT', path: `${store.path}/{id}`, auth: 'apiKeyOrBearer', body: 'json',
      doc: {
        operationId: `update${store.name}`, tags: ['Invoicing'], summary: `Change a saved ${store.one}`,
        requestBody: body,
        responses: { '200': { description: `The ${store.one}.`, schema: envelope(record) }, '409': ERR(store.updateConflict), '422': ERR('VALIDATION_ERROR.') },
      },
      handler: async (ctx) => ok(await store.update(tenantOf(ctx), uuidParam(ctx, 'id'), ctx.body)),
    },
    {
      method: 'DELETE', path: `${store.path}/{id}`, auth: 'apiKeyOrBearer',
      doc: { operationId: `delete${store.name}`, tags: ['Invoicing'], summary: `Delete a saved ${store.one}`, responses: { '200': { description: 'Deleted.', schema: envelope(S.object({ id: S.uuid(), deleted: S.bool() })) } } },
      handler: async (ctx) => ok(await store.remove(tenantOf(ctx), uuidParam(ctx, 'id'))),
    },
  ];
}

export function invoicingRoutes(deps: { invoicing: InvoicingService }): Route[] {
  const { invoicing } = deps;
  return [
    ...savedStoreRoutes({
      path: '/api/clientes', name: 'Customer', one: 'customer', many: 'customers',
      listQuery: { q: Q, rnc: { description: 'Only the customer with this RNC or cédula.', schema: S.string() }, limit: LIMIT },
      filter: (q) => ({ q: q.string('q') ?? null, rnc: q.string('rnc') ?? null }),
      list: (tenantId, filter, limit) => invoicing.customers(tenantId, filter, limit),
      save: async (tenantId, body) => {
        const { customer, created } = await invoicing.saveCustomer(tenantId, body);
        return { record: customer, created };
      },
      update: (tenantId, id, body) => invoicing.updateCustomer(tenantId, id, body),
      remove: (tenantId, id) => invoicing.deleteCustomer(tenantId, id),
      saveDoc: {
        summary: 'Save a customer (or update the one with its RNC)',
        description: `One saved customer per RNC or cédula: saving an RNC already saved updates its name and e-mail (200) instead of creating one (201). At most ${MAX_SAVED} per tenant.`,
        invalid: 'VALIDATION_ERROR: an RNC of the wrong length or check digit, an empty name, a malformed e-mail.',
      },
      updateConflict: 'CONFLICT: another saved customer has that RNC.',
    }),
    ...savedStoreRoutes({
      path: '/api/articulos', name: 'Item', one: 'item', many: 'items',
      listQuery: { q: Q, limit: LIMIT },
      filter: (q) => q.string('q') ?? null,
      list: (tenantId, filter, limit) => invoicing.items(tenantId, filter, limit),
      save: async (tenantId, body) => {
        const { item, created } = await invoicing.saveItem(tenantId, body);
        return { record: item, created };
      },
      update: (tenantId, id, body) => invoicing.updateItem(tenantId, id, body),
      remove: (tenantId, id) => invoicing.deleteItem(tenantId, id),
      saveDoc: {
        summary: 'Save an item (or update the one with its description)',
        description: `One saved item per description: saving a description already saved updates its price, rate and kind (200) instead of creating one (201). At most ${MAX_SAVED} per tenant.`,
        invalid: 'VALIDATION_ERROR.',
      },
      updateConflict: 'CONFLICT: another saved item has that description.',
    }),
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
