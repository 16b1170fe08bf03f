import type { Queryable } from '../db/connect.ts';

export interface KeyScope {
  tenantId: number;
  environment: string;
  key: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

export interface KeyRow {
  fingerprint: string;
  state: 'running' | 'done';
  lockedUntil: Date | null;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  expiresAt: Date;
}

/** A request's claim on a key: its scope, its owner token (fresh to the request), its fingerprint. */
export interface Claim {
  scope: KeyScope;
  owner: string;
  fingerprint: string;
}

/**
 * Claims keys atomically for their owners, all in one statement (the claims of requests that
 * arrived together). A new key is inserted; an existing one is taken over only when it has
 * expired, or when its request died holding it (lease past) with the same fingerprint. Answers
 * the owners that now hold their key. The caller passes each key once: a statement may not
 * change one row twice.
 *
 * Its transaction commits without waiting for the WAL flush (set_config(…, true): that
 * transaction alone). Nothing is lost by it: any later commit that waits, such as the
 * document's with its stored answer, flushes the WAL up to itself and so this claim before
 * it; a claim lost in a crash belonged to a request that had stored nothing, and its retry
 * claims again. Not waiting takes a flush per emit off PostgreSQL (a sixth of its CPU per
 * emit in the benchmark) and its latency off the request.
 */
export async function claimKeys(sql: Queryable, claims: readonly Claim[], leaseMs: number, ttlMs: number): Promise<Set<string>> {
  const rows = await sql<{ owner: string }[]>`
    insert into idempotency_keys (tenant_id, environment, key, owner, fingerprint, state, locked_until, expires_at)
    select c.tenant_id, c.environment, c.key, c.owner, c.fingerprint, 'running',
           now() + make_interval(secs => ${leaseMs / 1000}), now() + make_interval(secs => ${ttlMs / 1000})
    from unnest(${claims.map((c) => c.scope.tenantId)}::integer[], ${claims.map((c) => c.scope.environment)}::text[],
                ${claims.map((c) => c.scope.key)}::text[], ${claims.map((c) => c.owner)}::uuid[],
                ${claims.map((c) => c.fingerprint)}::text[]) as c(tenant_id, environment, key, owner, fingerprint),
         (select set_config('synchronous_commit', 'off', true)) as relaxed
    on conflict (tenant_id, environment, key) do update set
      owner = excluded.owner, fingerprint = excluded.fingerprint, state = 'running', locked_until = excluded.locked_until,
      response_status = null, response_headers = null, response_body = null,
      created_at = now(), expires_at = excluded.expires_at
    where idempotency_keys.expires_at <= now()
       or (idempotency_keys.state = 'running' and idempotency_keys.locked_until < now()
           and idempotency_keys.fingerprint = excluded.fingerprint)
    returning owner`;
  return new Set(rows.map((r) => r.owner));
}

export async function findKey(sql: Queryable, s: KeyScope): Promise<KeyRow | undefined> {
  const [row] = await sql<KeyRow[]>`
    select fingerprint, state, locked_until, response_status, response_headers, response_body, expires_at
    from idempotency_keys where tenant_id = ${s.tenantId} and environment = ${s.environment} and key = ${s.key}`;
  return row;
}

/** An answer to store for the claim `owner` holds on a key. */
export interface Answer {
  scope: KeyScope;
  owner: string;
  response: StoredResponse;
}

/**
 * The statement text that stores `count` answers (storeResponses): one CTE per answer, each an
 * update of its key's row by the full primary key. Written once per count. Not one UPDATE
 * joined to unnest(): on a young table (before autovacuum's first ANALYZE) a cached plan of
 * that join scans the whole table and hashes it, while each CTE here can only be an index
 * lookup of one row. Its last parameter is how many of the claims must still be their owners'
 * (idempotency_answers_held, sql/0018): fewer, and the statement fails.
 */
const answerStatements = new Map<number, string>();

/**
 * The counts a statement is written for (storeResponses pads a batch up to the next one with
 * entries that match no row): each count is a statement every connection prepares and keeps a
 * plan of, so 7 of them rather than one per batch size up to 64.
 */
const ANSWER_COUNTS = [1, 2, 4, 8, 16, 32, 64] as const;

/** Answers one statement stores at most. */
export const MAX_ANSWERS = ANSWER_COUNTS[ANSWER_COUNTS.length - 1];
function answerStatement(count: number): string {
  let text = answerStatements.get(count);
  if (text === undefined) {
    const ctes: string[] = [];
    const selects: string[] = [];
    for (let i = 0; i < count; i++) {
      const p = i * 7;
      ctes.push(`answer_${i} as (
        update idempotency_keys set state = 'done', locked_until = null,
          response_status = $${p + 1}::integer, response_headers = $${p + 2}::jsonb, response_body = $${p + 3}::text
        where tenant_id = $${p + 4}::integer and environment = $${p + 5}::text and key = $${p + 6}::text
          and owner = $${p + 7}::uuid and state = 'running'
        returning owner)`);
      selects.push(`select owner from answer_${i}`);
    }
    // The check is a volatile function in a subquery of its own, so it runs once whatever the
    // number of rows stored, and adds none (it returns the count, never below zero).
    text = `with ${ctes.join(',\n')},\nstored as (${selects.join(' union all ')})
select owner from stored
union all
select null from (select idempotency_answers_held((select count(*)::integer from stored), $${count * 7 + 1}::integer) as held) as checked where held < 0`;
    answerStatements.set(count, text);
  }
  return text;
}

/** SQLSTATE of storeResponses' failure when a claim it had to hold was taken over (sql/0018). */
const CLAIMS_TAKEN_OVER = 'ECF01';

export function isClaimTakenOver(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === CLAIMS_TAKEN_OVER;
}

/**
 * Stores answers (one, or an emit batch's) in one statement: answers the owners whose claim was
 * still their own, and whose answer is now stored. With `mustHold` (answers stored in their
 * requests' transaction) a claim taken over by a retry fails the statement, and so its
 * transaction (isClaimTakenOver); without it (an answer stored after its request's work), the
 * retry's claim is left alone and the owner is not in the set.
 */
export async function storeResponses(sql: Queryable, answers: readonly Answer[], mustHold: boolean): Promise<Set<string>> {
  const count = ANSWER_COUNTS.find((c) => c >= answers.length);
  if (count === undefined) throw new RangeError(`at most ${MAX_ANSWERS} answers in one statement`);
  // The headers as an object: the driver serialises each parameter by the type the server
  // described for it (jsonb here), so a JSON string would be stored as a JSON string.
  const params: (string | number | Record<string, string> | null)[] = [];
  for (const a of answers) {
    params.push(a.response.status, a.response.headers, a.response.body, a.scope.tenantId, a.scope.environment, a.scope.key, a.owner);
  }
  // Padding: a null key matches no row (tenant_id = null is never true).
  for (let i = answers.length; i < count; i++) params.push(null, null, null, null, null, null, null);
  params.push(mustHold ? answers.length : 0);
  const rows = await sql.unsafe<{ owner: string | null }[]>(answerStatement(count), params, { prepare: true });
  const stored = new Set<string>();
  for (const r of rows) if (r.owner !== null) stored.add(r.owner);
  return stored;
}

/** Forgets `owner`'s claim when its request failed in a way that should not be replayed (5xx). */
export async function releaseKey(sql: Queryable, s: KeyScope, owner: string): Promise<void> {
  await sql`
    delete from idempotency_keys
    where tenant_id = ${s.tenantId} and environment = ${s.environment} and key = ${s.key}
      and owner = ${owner} and state = 'running'`;
}

export async function purgeExpiredKeys(sql: Queryable, batch: number): Promise<number> {
  const rows = await sql`
    delete from idempotency_keys where ctid = any(array(
      select ctid from idempotency_keys where expires_at <= now() limit ${batch}))
    returning key`;
  return rows.count;
}
