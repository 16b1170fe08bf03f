import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/connect.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Environment } from '../environments.ts';
import { AppError, notFound, validationError } from '../errors.ts';
import { checkTaxId } from '../ecf/tax-id.ts';
import { EMAIL, Input } from '../lib/input.ts';
import type { ReceiverDirectory } from '../dgii/directory.ts';
import type { DraftFormat } from '../ecf/print/draft.ts';
import { sharedRenderPool } from '../ecf/print/index.ts';
import { validateEcf } from '../ecf/validation/index.ts';
import {
  countCustomers, countItems, deleteCustomer, deleteItem, listCustomers, listItems, updateCustomer, updateItem,
  upsertCustomer, upsertItem, type CustomerRow, type ItemRow,
} from './queries.ts';

// Saved customers and items for the dashboard's invoice form, and the buyer's name from DGII's
// directory. Bounded: at most MAX_SAVED of each per tenant, lists of at most MAX_LISTED.

export const MAX_SAVED = 10_000;
export const MAX_LISTED = 500;
/** A price: up to 16 integer digits and 4 decimals (PrecioUnitarioItem's XSD allows 4). */
const PRICE = /^\d{1,16}(\.\d{1,4})?$/;

export interface CustomerView { id: string; rnc: string; nombre: string; correo: string | null; updatedAt: string }
export interface ItemView { id: string; descripcion: string; precioUnitario: string; indicadorFacturacion: number; indicadorBienoServicio: number; updatedAt: string }

const customerView = (r: CustomerRow): CustomerView => ({ id: r.id, rnc: r.rnc, nombre: r.name, correo: r.email, updatedAt: r.updatedAt.toISOString() });

/** numeric(20,4) text without the padding zeros beyond cents: 3500.0000 → 3500.00, 1.2345 stays. */
function trimPrice(text: string): string {
  const [int = '0', frac = ''] = text.split('.');
  const kept = frac.replace(/0+$/, '');
  return `${int}.${kept.padEnd(2, '0')}`;
}

const itemView = (r: ItemRow): ItemView => ({
  id: r.id, descripcion: r.description, precioUnitario: trimPrice(r.price), indicadorFacturacion: r.indicator, indicadorBienoServicio: r.kind, updatedAt: r.updatedAt.toISOString(),
});

/** An RNC (9 digits) or cédula (11) with DGII's check digit, or a 422 at `path`. */
function taxIdProblem(rnc: string): string | null {
  if (!/^(\d{9}|\d{11})$/.test(rnc)) return 'must be an RNC (9 digits) or cédula (11 digits)';
  return checkTaxId(rnc).valid ? null : 'has a wrong check digit';
}

function readCustomer(body: unknown): { rnc: string; name: string; email: string | null } {
  const input = new Input(body);
  const rnc = input.string('rnc', { max: 11 });
  const name = input.string('nombre', { max: 150 });
  const email = input.optionalString('correo', { max: 80, pattern: EMAIL, patternMessage: 'must be an email address' }) ?? null;
  const problem = input.errors.some((e) => e.path === 'rnc') ? null : taxIdProblem(rnc);
  if (problem !== null) input.errors.push({ path: 'rnc', message: problem });
  input.done();
  return { rnc, name, email: email === '' ? null : email };
}

const INDICATORS = [1, 2, 3, 4] as const;

function readItem(body: unknown): { description: string; price: string; indicator: number; kind: number } {
  const input = new Input(body);
  const description = input.string('descripcion', { max: 80 });
  const price = input.string('precioUnitario', { max: 21, pattern: PRICE, patternMessage: 'must be a decimal amount with at most 4 decimals' });
  const raw = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const indicator = raw.indicadorFacturacion;
  const kind = raw.indicadorBienoServicio;
  input.has('indicadorFacturacion');
  input.has('indicadorBienoServicio');
  if (!INDICATORS.includes(indicator as 1)) input.errors.push({ path: 'indicadorFacturacion', message: 'must be one of 1, 2, 3, 4' });
  if (kind !== 1 && kind !== 2) input.errors.push({ path: 'indicadorBienoServicio', message: 'must be one of 1, 2' });
  input.done();
  return { description, price, indicator: indicator as number, kind: kind as number };
}

function readFilter(q: string | null): string | null {
  if (q === null || q.trim() === '') return null;
  if (q.length > 100) throw validationError([{ path: 'q', message: 'must have at most 100 characters' }]);
  return q.trim();
}

export class InvoicingService {
  private readonly sql: Sql;
  private readonly directory: ReceiverDirectory;
  private readonly rncOf: (tenantId: number) => Promise<string>;

  constructor(sql: Sql, directory: ReceiverDirectory, rncOf: (tenantId: number) => Promise<string>) {
    this.sql = sql;
    this.directory = directory;
    this.rncOf = rncOf;
  }

  /**
   * The printed representation of an e-CF body not emitted yet, marked as a draft: validated as
   * the emit validates it (its 422 details are the emit's), never numbered, never signed, never
   * stored. A body with an eNCF is refused: a draft must not look like a numbered document.
   */
  async draftPdf(tenantId: number, body: unknown, format: DraftFormat): Promise<{ data: Buffer; filename: string }> {
    const result = validateEcf(body);
    if (!result.ok) throw validationError(result.errors, 'The e-CF is not valid');
    const errors = [];
    if (result.document.eNCF !== undefined) errors.push({ path: 'ECF.Encabezado.IdDoc.eNCF', message: 'must be left out of a draft: only an emitted document is numbered' });
    const rnc = await this.rncOf(tenantId);
    if (result.document.RNCEmisor !== rnc) errors.push({ path: 'ECF.Encabezado.Emisor.RNCEmisor', message: `must be the RNC of this account (${rnc})` });
    if (errors.length > 0) throw validationError(errors, 'The e-CF is not valid');
    return { data: await sharedRenderPool().renderDraft(result.document.tipo, result.document.ecf, format, String(tenantId)), filename: `${rnc}-borrador.pdf` };
  }

  async customers(tenantId: number, filter: { q: string | null; rnc: string | null }, limit: number): Promise<CustomerView[]> {
    if (filter.rnc !== null && !/^(\d{9}|\d{11})$/.test(filter.rnc)) throw validationError([{ path: 'rnc', message: 'must be an RNC (9 digits) or cédula (11 digits)' }]);
    return (await listCustomers(this.sql, tenantId, { q: readFilter(filter.q), rnc: filter.rnc }, limit)).map(customerView);
  }

  /** Saves a customer; one with the same RNC is updated instead (created false). */
  async saveCustomer(tenantId: number, body: unknown): Promise<{ customer: CustomerView; created: boolean }> {
    const c = readCustomer(body);
    return this.sql.begin(async (tx) => {
      // Serialises the tenant's inserts, so the cap holds under concurrent saves.
      await tx`select pg_advisory_xact_lock(hashtext('saved_customers'), ${tenantId})`;
      const existing = await listCustomers(tx, tenantId, { q: null, rnc: c.rnc }, 1);
      if (existing.length === 0 && (await countCustomers(tx, tenantId)) >= MAX_SAVED) {
        throw new AppError('CONFLICT', `At most ${MAX_SAVED} saved customers per tenant; delete some first`);
      }
      const row = await upsertCustomer(tx, tenantId, { id: randomUUID(), ...c });
      return { customer: customerView(row), created: row.created };
    });
  }

  async updateCustomer(tenantId: number, id: string, body: unknown): Promise<CustomerView> {
    const c = readCustomer(body);
    try {
      const row = await updateCustomer(this.sql, tenantId, id, c);
      if (row === undefined) throw notFound('Customer');
      return customerView(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', `Another saved customer has the RNC ${c.rnc}`);
      throw err;
    }
  }

  async deleteCustomer(tenantId: number, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await deleteCustomer(this.sql, tenantId, id))) throw notFound('Customer');
    return { id, deleted: true };
  }

  async items(tenantId: number, q: string | null, limit: number): Promise<ItemView[]> {
    return (await listItems(this.sql, tenantId, readFilter(q), limit)).map(itemView);
  }

  async saveItem(tenantId: number, body: unknown): Promise<{ item: ItemView; created: boolean }> {
    const i = readItem(body);
    return this.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('saved_items'), ${tenantId})`;
      const [same] = await tx<{ n: number }[]>`select count(*)::int as n from saved_items where tenant_id = ${tenantId} and description = ${i.description}`;
      if ((same?.n ?? 0) === 0 && (await countItems(tx, tenantId)) >= MAX_SAVED) {
        throw new AppError('CONFLICT', `At most ${MAX_SAVED} saved items per tenant; delete some first`);
      }
      const row = await upsertItem(tx, tenantId, { id: randomUUID(), ...i });
      return { item: itemView(row), created: row.created };
    });
  }

  async updateItem(tenantId: number, id: string, body: unknown): Promise<ItemView> {
    const i = readItem(body);
    try {
      const row = await updateItem(this.sql, tenantId, id, i);
      if (row === undefined) throw notFound('Item');
      return itemView(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', `Another saved item is described as ${i.description}`);
      throw err;
    }
  }

  async deleteItem(tenantId: number, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await deleteItem(this.sql, tenantId, id))) throw notFound('Item');
    return { id, deleted: true };
  }

  /**
   * The name DGII's directory of electronic receivers gives an RNC, or null when it does not
   * list it. Asked through the tenant's own DGII session, so it needs a valid certificate.
   */
  async directoryName(tenantId: number, environment: Environment, rnc: string, signal: AbortSignal): Promise<{ rnc: string; nombre: string | null }> {
    const problem = taxIdProblem(rnc);
    if (problem !== null) throw validationError([{ path: 'rnc', message: problem }]);
    try {
      const entry = await this.directory.lookup(tenantId, environment, rnc, signal);
      return { rnc, nombre: entry === null || entry.nombre === '' ? null : entry.nombre };
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('SERVICE_UNAVAILABLE', 'DGII\'s directory could not be read now');
    }
  }
}
