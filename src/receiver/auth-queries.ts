import type { Queryable } from '../db/connect.ts';
import type { Environment } from '../environments.ts';

// Tenants by RNC, and the receiver's seeds and tokens. Times come from the database
// clock, so instances with drifting clocks agree on what has expired.

export interface ReceiverTenant {
  id: number;
  rnc: string;
}

export interface TokenRow {
  tenantId: number;
  environment: Environment;
  holderId: string | null;
  holderSubject: string;
}

export async function findTenantByRnc(sql: Queryable, rnc: string): Promise<ReceiverTenant | undefined> {
  const [row] = await sql<ReceiverTenant[]>`select id, rnc from tenants where rnc = ${rnc}`;
  return row;
}

/** Tenants as the in-process DGII simulator's directory lists them: one RNC, or every tenant (capped). */
export async function listTenants(sql: Queryable, rnc: string | null, limit: number): Promise<{ rnc: string; name: string }[]> {
  return rnc === null
    ? sql<{ rnc: string; name: string }[]>`select rnc, name from tenants order by id limit ${limit}`
    : sql<{ rnc: string; name: string }[]>`select rnc, name from tenants where rnc = ${rnc}`;
}

/** Stores a new seed (and drops expired ones, which keeps the table at the live seeds). */
export async function insertSeed(sql: Queryable, s: { value: string; tenantId: number; environment: Environment; ttlMs: number }): Promise<void> {
  await sql`delete from receiver_seeds where expires_at < now()`;
  await sql`
    insert into receiver_seeds (value, tenant_id, environment, expires_at)
    values (${s.value}, ${s.tenantId}, ${s.environment}, now() + ${s.ttlMs}::double precision * interval '1 millisecond')`;
}

/** True exactly once for a live seed of this tenant and environment; the seed is gone afterwards. */
export async function consumeSeed(sql: Queryable, s: { value: string; tenantId: number; environment: Environment }): Promise<boolean> {
  const rows = await sql`
    delete from receiver_seeds
    where value = ${s.value} and tenant_id = ${s.tenantId} and environment = ${s.environment} and expires_at > now()
    returning 1`;
  return rows.count > 0;
}

export async function insertToken(
  sql: Queryable,
  t: { tokenHash: Buffer; tenantId: number; environment: Environment; holderId: string | null; holderSubject: string; ttlMs: number },
): Promise<{ issuedAt: Date; expiresAt: Date }> {
  await sql`delete from receiver_tokens where expires_at < now()`;
  const [row] = await sql<{ issuedAt: Date; expiresAt: Date }[]>`
    insert into receiver_tokens (token_hash, tenant_id, environment, holder_id, holder_subject, expires_at)
    values (${t.tokenHash}, ${t.tenantId}, ${t.environment}, ${t.holderId}, ${t.holderSubject}, now() + ${t.ttlMs}::double precision * interval '1 millisecond')
    returning issued_at, expires_at`;
  return row as { issuedAt: Date; expiresAt: Date };
}

export async function findLiveToken(sql: Queryable, tokenHash: Buffer): Promise<TokenRow | undefined> {
  const [row] = await sql<TokenRow[]>`
    select tenant_id, environment, holder_id, holder_subject from receiver_tokens
    where token_hash = ${tokenHash} and expires_at > now()`;
  return row;
}
