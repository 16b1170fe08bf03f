import type { Queryable } from '../db/connect.ts';

// The saved customers and items of a tenant (sql/0033). Every statement names the tenant, so
// one tenant's ids are "not found" to another.

export interface CustomerRow {
  id: string;
  rnc: string;
  name: string;
  email: string | null;
  updatedAt: Date;
}

export interface ItemRow {
  id: string;
  description: string;
  /** Decimal text as numeric(20,4) prints it (4 decimals); the service trims it. */
  price: string;
  indicator: number;
  kind: number;
  updatedAt: Date;
}

const CUSTOMER = 'id, rnc, name, email, updated_at';
// numeric → text keeps every digit, never through a float.
const ITEM = 'id, description, price::text as price, indicator, kind, updated_at';

/** Customers whose name or RNC contains `q` (all when null), or the one with RNC `rnc`, by name. */
export async function listCustomers(sql: Queryable, tenantId: number, filter: { q: string | null; rnc: string | null }, limit: number): Promise<CustomerRow[]> {
  const like = filter.q === null ? null : `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<CustomerRow[]>`
    select ${sql.unsafe(CUSTOMER)} from saved_customers
    where tenant_id = ${tenantId}
      and (${filter.rnc}::text is null or rnc = ${filter.rnc})
      and (${like}::text is null or name ilike ${like} or rnc like ${like})
    order by lower(name), id limit ${limit}`;
}

export async function countCustomers(sql: Queryable, tenantId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from saved_customers where tenant_id = ${tenantId}`;
  return row?.n ?? 0;
}

/** Inserts the customer, or updates the one with the same RNC; `created` tells which. */
export async function upsertCustomer(sql: Queryable, tenantId: number, c: { id: string; rnc: string; name: string; email: string | null }): Promise<CustomerRow & { created: boolean }> {
  const [row] = await sql<(CustomerRow & { created: boolean })[]>`
    insert into saved_customers (id, tenant_id, rnc, name, email) values (${c.id}, ${tenantId}, ${c.rnc}, ${c.name}, ${c.email})
    on conflict (tenant_id, rnc) do update set name = excluded.name, email = excluded.email, updated_at = now()
    returning ${sql.unsafe(CUSTOMER)}, (xmax = 0) as created`;
  return row as CustomerRow & { created: boolean };
}

export async function updateCustomer(sql: Queryable, tenantId: number, id: string, c: { rnc: string; name: string; email: string | null }): Promise<CustomerRow | undefined> {
  const [row] = await sql<CustomerRow[]>`
    update saved_customers set rnc = ${c.rnc}, name = ${c.name}, email = ${c.email}, updated_at = now()
    where tenant_id = ${tenantId} and id = ${id}
    returning ${sql.unsafe(CUSTOMER)}`;
  return row;
}

export async function deleteCustomer(sql: Queryable, tenantId: number, id: string): Promise<boolean> {
  const rows = await sql<{ id: string }[]>`delete from saved_customers where tenant_id = ${tenantId} and id = ${id} returning id`;
  return rows.length > 0;
}

export async function listItems(sql: Queryable, tenantId: number, q: string | null, limit: number): Promise<ItemRow[]> {
  const like = q === null ? null : `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<ItemRow[]>`
    select ${sql.unsafe(ITEM)} from saved_items
    where tenant_id = ${tenantId} and (${like}::text is null or description ilike ${like})
    order by lower(description), id limit ${limit}`;
}

export async function countItems(sql: Queryable, tenantId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from saved_items where tenant_id = ${tenantId}`;
  return row?.n ?? 0;
}

export async function upsertItem(sql: Queryable, tenantId: number, i: { id: string; description: string; price: string; indicator: number; kind: number }): Promise<ItemRow & { created: boolean }> {
  const [row] = await sql<(ItemRow & { created: boolean })[]>`
    insert into saved_items (id, tenant_id, description, price, indicator, kind)
    values (${i.id}, ${tenantId}, ${i.description}, ${i.price}::numeric, ${i.indicator}, ${i.kind})
    on conflict (tenant_id, description) do update
      set price = excluded.price, indicator = excluded.indicator, kind = excluded.kind, updated_at = now()
    returning ${sql.unsafe(ITEM)}, (xmax = 0) as created`;
  return row as ItemRow & { created: boolean };
}

export async function updateItem(sql: Queryable, tenantId: number, id: string, i: { description: string; price: string; indicator: number; kind: number }): Promise<ItemRow | undefined> {
  const [row] = await sql<ItemRow[]>`
    update saved_items set description = ${i.description}, price = ${i.price}::numeric, indicator = ${i.indicator}, kind = ${i.kind}, updated_at = now()
    where tenant_id = ${tenantId} and id = ${id}
    returning ${sql.unsafe(ITEM)}`;
  return row;
}

export async function deleteItem(sql: Queryable, tenantId: number, id: string): Promise<boolean> {
  const rows = await sql<{ id: string }[]>`delete from saved_items where tenant_id = ${tenantId} and id = ${id} returning id`;
  return rows.length > 0;
}
