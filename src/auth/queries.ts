import type { Environment } from '../environments.ts';
import type { Queryable } from '../db/connect.ts';

// Identity queries. Each function is one statement; callers pass `sql` or a transaction.

export interface TenantRow {
  id: number;
  name: string;
  rnc: string;
  createdAt: Date;
}

export interface UserRow {
  id: number;
  tenantId: number;
  email: string;
  name: string;
  passwordHash: string;
  createdAt: Date;
}

export interface ApiKeyRow {
  id: string;
  tenantId: number;
  publicId: string;
  keyHash: Buffer;
  name: string;
  /** The environments the key may act in ({env} of the path). */
  environments: Environment[];
  /** Refuses every write (any method but GET). */
  readOnly: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface SessionRow {
  id: string;
  tenantId: number;
  userId: number;
  expiresAt: Date;
  revokedAt: Date | null;
}

export async function insertTenant(sql: Queryable, t: { name: string; rnc: string }): Promise<TenantRow> {
  const [row] = await sql<TenantRow[]>`insert into tenants (name, rnc) values (${t.name}, ${t.rnc}) returning id, name, rnc, created_at`;
  return row as TenantRow;
}

export async function findTenant(sql: Queryable, id: number): Promise<TenantRow | undefined> {
  const [row] = await sql<TenantRow[]>`select id, name, rnc, created_at from tenants where id = ${id}`;
  return row;
}

export async function insertUser(sql: Queryable, u: { tenantId: number; email: string; name: string; passwordHash: string }): Promise<UserRow> {
  const [row] = await sql<UserRow[]>`
    insert into users (tenant_id, email, name, password_hash)
    values (${u.tenantId}, ${u.email}, ${u.name}, ${u.passwordHash})
    returning id, tenant_id, email, name, password_hash, created_at`;
  return row as UserRow;
}

export async function findUserByEmail(sql: Queryable, email: string): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`select id, tenant_id, email, name, password_hash, created_at from users where email = ${email}`;
  return row;
}

export async function findUser(sql: Queryable, id: number): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`select id, tenant_id, email, name, password_hash, created_at from users where id = ${id}`;
  return row;
}

export async function updatePasswordHash(sql: Queryable, userId: number, passwordHash: string, changed: boolean): Promise<void> {
  await sql`
    update users set password_hash = ${passwordHash},
      password_changed_at = case when ${changed} then now() else password_changed_at end
    where id = ${userId}`;
}

export async function insertApiKey(
  sql: Queryable,
  k: { id: string; tenantId: number; publicId: string; keyHash: Buffer; name: string; createdBy: number | null; environments: readonly Environment[]; readOnly: boolean },
): Promise<ApiKeyRow> {
  const [row] = await sql<ApiKeyRow[]>`
    insert into api_keys (id, tenant_id, public_id, key_hash, name, created_by, environments, read_only)
    values (${k.id}, ${k.tenantId}, ${k.publicId}, ${k.keyHash}, ${k.name}, ${k.createdBy}, ${sql.array([...k.environments])}::text[], ${k.readOnly})
    returning id, tenant_id, public_id, key_hash, name, environments, read_only, created_at, last_used_at, revoked_at`;
  return row as ApiKeyRow;
}

export async function findApiKeyByPublicId(sql: Queryable, publicId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`
    select id, tenant_id, public_id, key_hash, name, environments, read_only, created_at, last_used_at, revoked_at
    from api_keys where public_id = ${publicId}`;
  return row;
}

export async function listApiKeys(sql: Queryable, tenantId: number): Promise<ApiKeyRow[]> {
  return sql<ApiKeyRow[]>`
    select id, tenant_id, public_id, key_hash, name, environments, read_only, created_at, last_used_at, revoked_at
    from api_keys where tenant_id = ${tenantId} order by created_at desc, id`;
}

/** Revokes a key of the tenant; undefined when the tenant has no such key. */
export async function revokeApiKey(sql: Queryable, tenantId: number, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now())
    where id = ${id} and tenant_id = ${tenantId}
    returning id, tenant_id, public_id, key_hash, name, environments, read_only, created_at, last_used_at, revoked_at`;
  return row;
}

/** Changes the scope of a key of the tenant; undefined when the tenant has no such key. */
export async function updateApiKeyScope(sql: Queryable, tenantId: number, id: string, scope: { environments: readonly Environment[]; readOnly: boolean }): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`
    update api_keys set environments = ${sql.array([...scope.environments])}::text[], read_only = ${scope.readOnly}
    where id = ${id} and tenant_id = ${tenantId}
    returning id, tenant_id, public_id, key_hash, name, environments, read_only, created_at, last_used_at, revoked_at`;
  return row;
}

export async function touchApiKey(sql: Queryable, id: string): Promise<void> {
  await sql`update api_keys set last_used_at = now() where id = ${id}`;
}

export async function insertSession(sql: Queryable, s: { id: string; tenantId: number; userId: number; expiresAt: Date }): Promise<void> {
  await sql`insert into sessions (id, tenant_id, user_id, expires_at) values (${s.id}, ${s.tenantId}, ${s.userId}, ${s.expiresAt})`;
}

export async function findSession(sql: Queryable, id: string): Promise<SessionRow | undefined> {
  const [row] = await sql<SessionRow[]>`select id, tenant_id, user_id, expires_at, revoked_at from sessions where id = ${id}`;
  return row;
}

export async function revokeSession(sql: Queryable, id: string, reason: string): Promise<void> {
  await sql`update sessions set revoked_at = now(), revoked_reason = ${reason} where id = ${id} and revoked_at is null`;
}

export async function revokeUserSessions(sql: Queryable, userId: number, reason: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update sessions set revoked_at = now(), revoked_reason = ${reason}
    where user_id = ${userId} and revoked_at is null returning id`;
  return rows.map((r) => r.id);
}

export async function insertRefreshToken(sql: Queryable, t: { id: string; sessionId: string; expiresAt: Date }): Promise<void> {
  await sql`insert into refresh_tokens (id, session_id, expires_at) values (${t.id}, ${t.sessionId}, ${t.expiresAt})`;
}

/**
 * Marks a refresh token used, atomically: of two concurrent uses only one is `claimed`.
 * `reused` means the token had already been used (a replay); `expired` that it was not.
 */
export async function useRefreshToken(sql: Queryable, id: string): Promise<{ sessionId: string; outcome: 'claimed' | 'reused' | 'expired' } | undefined> {
  const [row] = await sql<{ sessionId: string; outcome: 'claimed' | 'reused' | 'expired' }[]>`
    with claimed as (
      update refresh_tokens set used_at = now()
      where id = ${id} and used_at is null and expires_at > now()
      returning session_id
    )
    select session_id, 'claimed' as outcome from claimed
    union all
    select session_id, case when used_at is not null then 'reused' else 'expired' end as outcome
    from refresh_tokens
    where id = ${id} and not exists (select 1 from claimed)`;
  return row;
}

export async function deleteExpiredSessions(sql: Queryable): Promise<number> {
  const rows = await sql`delete from sessions where expires_at < now() - interval '1 day' returning id`;
  return rows.count;
}
