import type postgres from 'postgres';
import type { Queryable } from '../db/connect.ts';
import { DELIVERY_KIND, type JobKind, type JobPayloads } from './kinds.ts';

export interface JobRow<K extends JobKind = JobKind> {
  id: string;
  kind: K;
  payload: JobPayloads[K];
  runAt: Date;
  attempts: number;
  lastError: string | null;
}

/** A payload with no required field may be left out. */
type PayloadOf<K extends JobKind> = {} extends JobPayloads[K] ? { payload?: JobPayloads[K] } : { payload: JobPayloads[K] };

/** A job to enqueue: its payload is the one its kind declares in JobPayloads. */
export type NewJob = {
  [K in JobKind]: {
    kind: K;
    /** Delay before the job may run. */
    delayMs?: number;
    /** A job with this key is not added while another with the same key is pending. */
    uniqueKey?: string;
  } & PayloadOf<K>;
}[JobKind];

export async function insertJob(sql: Queryable, job: NewJob): Promise<string | null> {
  const delay = job.delayMs ?? 0;
  const [row] = await sql<{ id: string }[]>`
    insert into jobs (kind, payload, run_at, unique_key)
    values (${job.kind}, ${sql.json((job.payload ?? {}) as never)}, now() + make_interval(secs => ${delay / 1000}), ${job.uniqueKey ?? null})
    on conflict (unique_key) do nothing
    returning id`;
  return row?.id ?? null;
}

/** Jobs of `kind` whose payload field `field` is `value` (as text). */
export interface SkippedGroup {
  kind: string;
  field: string;
  value: string;
}

/**
 * The same insert as insertJob, for several jobs, as a fragment for a data-modifying CTE of
 * another statement (the jobs then commit with the rows that statement writes, in one round
 * trip): each job is made only if its `ref` is among `refs` (a select of one uuid column, e.g.
 * the ids a sibling CTE inserted). The jobs travel as one JSON parameter, so the statement's
 * text is the same for any number.
 */
export function insertJobsFor(sql: Queryable, jobs: readonly { ref: string; job: NewJob }[], refs: postgres.PendingQuery<postgres.Row[]>): postgres.PendingQuery<postgres.Row[]> {
  const rows = jobs.map(({ ref, job }) => ({ ref, kind: job.kind, payload: job.payload ?? {}, delay: (job.delayMs ?? 0) / 1000, unique_key: job.uniqueKey ?? null }));
  return sql`
    insert into jobs (kind, payload, run_at, unique_key)
    select j.kind, j.payload, now() + make_interval(secs => j.delay), j.unique_key
    from jsonb_to_recordset(${sql.json(rows as never)}) as j(ref uuid, kind text, payload jsonb, delay float8, unique_key text)
    where j.ref in (${refs})
    on conflict (unique_key) do nothing`;
}

/**
 * What completeJobs deletes, as a fragment for a data-modifying CTE of another statement
 * (a job finished by the write that statement makes): each job of `owned`, a select of
 * (job id, owner), still leased by that owner with no rerun asked. Answers the deleted ids.
 * A job with a rerun asked is left for the runtime, whose completion runs it again.
 */
export function deleteFinishedJobs(sql: Queryable, owned: postgres.PendingQuery<postgres.Row[]>): postgres.PendingQuery<postgres.Row[]> {
  // By id through the primary key whatever the plan (as claimJobs): a statement's generic plan
  // may take `owned` for a hundred rows, and hash-join it with the whole table.
  return sql`
    delete from jobs j using (${owned}) as o(id, owner)
    where j.id = any(array(select k.id from (${owned}) as k(id, owner))) and j.id = o.id and j.locked_by = o.owner and not j.rerun
    returning j.id`;
}

/**
 * Claims up to `limit` due jobs for `owner` for `leaseMs`. SKIP LOCKED lets concurrent
 * claimers take disjoint sets; an expired lease (its worker died) is due again.
 */
export async function claimJobs(
  sql: Queryable,
  kinds: readonly JobKind[],
  owner: string,
  limit: number,
  leaseMs: number,
  running: readonly string[] = [],
  skip: readonly SkippedGroup[] = [],
): Promise<JobRow[]> {
  // `running`: the claimer's own jobs still in progress. Their lease may have lapsed (a
  // stalled event loop), but taking one again would run it twice in one process.
  // `skip`: groups the claimer has enough of already (see JobDefinition.group).
  const mine = sql`not (id = any(${running as string[]}::bigint[]))`;
  const tenantsLeft = skip.every((s) => s.kind === DELIVERY_KIND && s.field === 'tenantId') ? skip.map((s) => s.value) : [];
  const next = kinds.length === 1 && kinds[0] === DELIVERY_KIND && tenantsLeft.length > 0
    ? deliveriesOfOtherTenants(sql, tenantsLeft, limit, mine)
    : sql`next as (${dueInOrder(sql, kinds, limit, mine, skip)})`;
  return sql<JobRow[]>`
    with ${next}
    -- By id through the primary key whatever the plan: joined to \`next\` instead, the generic
    -- plan (which knows no limit) hash-joins over the whole table.
    update jobs j
    set locked_until = now() + make_interval(secs => ${leaseMs / 1000}), locked_by = ${owner}, attempts = j.attempts + 1
    where j.id = any(array(select id from next))
    returning j.id, j.kind, j.payload, j.run_at, j.attempts, j.last_error`;
}

/**
 * The claim's common case: due jobs walked in `run_at` order, those of `skip` left out. Without
 * deliveries, in text the planner matches to jobs_due_others_idx (sql/0036): such a claim does
 * not read past the deliveries waiting for a slow receiver.
 */
function dueInOrder(sql: Queryable, kinds: readonly JobKind[], limit: number, mine: postgres.PendingQuery<postgres.Row[]>, skip: readonly SkippedGroup[]): postgres.PendingQuery<postgres.Row[]> {
  const skipped = skip.length === 0 ? sql`` : sql`
        and not exists (
          select 1 from unnest(${skip.map((s) => s.kind)}::text[], ${skip.map((s) => s.field)}::text[], ${skip.map((s) => s.value)}::text[]) as s(kind, field, value)
          where s.kind = jobs.kind and jobs.payload ->> s.field = s.value)`;
  const others = kinds.includes(DELIVERY_KIND) ? sql`` : sql`and kind <> 'webhook.deliver'`;
  // The kinds as `array_position(...) is not null`, which no index serves and the planner takes to
  // keep nearly every row: as `kind = any(...)`, without statistics of jobs it took the kinds for
  // one row in two hundred, and read every due job of them through jobs_kind_idx and sorted them.
  return sql`
      select id from jobs
      where run_at <= now()
        and (locked_until is null or locked_until < now())
        and array_position(${kinds as string[]}::text[], kind) is not null ${others}
        and ${mine}${skipped}
      order by run_at, id
      limit ${limit}
      for update skip locked`;
}

/**
 * A deliveries' claim that leaves out tenants at their limit (`tenantsLeft`): walked in `run_at`
 * order, it would read all of their waiting deliveries to find the others' (80–150 ms with
 * 100,000 of a slow receiver's waiting). Instead the tenants with deliveries are found one index
 * descent each (a loose index scan of jobs_due_deliveries_by_tenant_idx), and only the others'
 * due deliveries read, twice as many as wanted, then locked oldest first: one another claimer
 * holds is skipped for the next. Each tenant's are read in that index's order (the tenant named
 * in ORDER BY, as the planner does not take a value from the outer query for a constant).
 */
function deliveriesOfOtherTenants(sql: Queryable, tenantsLeft: readonly string[], limit: number, mine: postgres.PendingQuery<postgres.Row[]>): postgres.PendingQuery<postgres.Row[]> {
  return sql`recursive delivery_tenants(tenant_id) as (
      (select payload ->> 'tenantId' from jobs where kind = 'webhook.deliver' order by payload ->> 'tenantId' limit 1)
      union all
      select (select payload ->> 'tenantId' from jobs where kind = 'webhook.deliver' and payload ->> 'tenantId' > t.tenant_id order by payload ->> 'tenantId' limit 1)
      from delivery_tenants t where t.tenant_id is not null
    ), candidates as (
      select c.id from delivery_tenants t cross join lateral (
        select id, run_at from jobs
        where kind = 'webhook.deliver' and payload ->> 'tenantId' = t.tenant_id and run_at <= now() and (locked_until is null or locked_until < now())
        order by payload ->> 'tenantId', run_at, id
        limit ${2 * limit}) c
      where t.tenant_id is not null and not (t.tenant_id = any(${tenantsLeft as string[]}::text[]))
      order by c.run_at, c.id
      limit ${2 * limit}
    ), next as (
      select id from jobs
      where id = any(array(select id from candidates))
        and run_at <= now() and (locked_until is null or locked_until < now()) and ${mine}
      order by run_at, id
      limit ${limit}
      for update skip locked
    )`;
}

/**
 * Deletes a finished job, but only while `owner` still holds its lease. A job asked to run
 * again meanwhile (`rerun`) is made due at once instead.
 */
export async function completeJob(sql: Queryable, id: string, owner: string): Promise<boolean> {
  const rows = await sql`
    with finished as (
      delete from jobs where id = ${id} and locked_by = ${owner} and not rerun returning id
    ), again as (
      update jobs set run_at = now(), locked_until = null, locked_by = null, attempts = 0, last_error = null, rerun = false
      where id = ${id} and locked_by = ${owner} and rerun
      returning id
    )
    select id from finished union all select id from again`;
  return rows.count > 0;
}

/**
 * completeJob for many jobs in one statement: each finished job still held by `owner` is
 * deleted, or made due at once if asked to run again (`rerun`). Returns the ids written.
 */
export async function completeJobs(sql: Queryable, ids: readonly string[], owner: string): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`
    with finished as (
      delete from jobs where id = any(${ids as string[]}::bigint[]) and locked_by = ${owner} and not rerun returning id
    ), again as (
      update jobs set run_at = now(), locked_until = null, locked_by = null, attempts = 0, last_error = null, rerun = false
      where id = any(${ids as string[]}::bigint[]) and locked_by = ${owner} and rerun
      returning id
    )
    select id from finished union all select id from again`;
  return new Set(rows.map((r) => String(r.id)));
}

/** Puts a job back for a later run. `countAttempt: false` for planned waits (polling). */
export async function rescheduleJob(
  sql: Queryable,
  id: string,
  owner: string,
  r: { delayMs: number; error: string | null; countAttempt: boolean; payload?: JobPayloads[JobKind] | undefined },
): Promise<boolean> {
  const rows = await sql`
    update jobs set
      run_at = case when rerun then now() else now() + make_interval(secs => ${r.delayMs / 1000}) end,
      locked_until = null, locked_by = null,
      last_error = ${r.error},
      attempts = case when ${r.countAttempt} and not rerun then attempts else 0 end,
      rerun = false,
      payload = coalesce(${r.payload === undefined ? null : sql.json(r.payload as never)}::jsonb, payload)
    where id = ${id} and locked_by = ${owner}
    returning id`;
  return rows.count > 0;
}

/**
 * Extends the lease of jobs `owner` is running, so one that outlasts the lease is not
 * claimed again while it runs. Returns the ids still held; a missing one was taken over.
 */
export async function renewLeases(sql: Queryable, ids: string[], owner: string, leaseMs: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`
    update jobs set locked_until = now() + make_interval(secs => ${leaseMs / 1000})
    where id = any(${ids}::bigint[]) and locked_by = ${owner}
    returning id`;
  return new Set(rows.map((r) => String(r.id)));
}

/** Gives claimed jobs back at shutdown without counting the attempt. */
export async function releaseJobs(sql: Queryable, ids: string[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    update jobs set locked_until = null, locked_by = null, attempts = greatest(attempts - 1, 0)
    where id = any(${ids}::bigint[]) and locked_by = ${owner}`;
}

export async function countJobs(sql: Queryable): Promise<{ kind: JobKind; queued: number; running: number }[]> {
  return sql<{ kind: JobKind; queued: number; running: number }[]>`
    select kind,
      count(*) filter (where locked_until is null or locked_until < now())::int as queued,
      count(*) filter (where locked_until >= now())::int as running
    from jobs group by kind order by kind`;
}

/** Jobs due now and not claimed, by kind, and how long the oldest of them has waited past its time. */
export async function dueJobs(sql: Queryable): Promise<{ kind: JobKind; due: number; oldestDueSeconds: number }[]> {
  return sql<{ kind: JobKind; due: number; oldestDueSeconds: number }[]>`
    select kind, count(*)::int as due, extract(epoch from now() - min(run_at))::float8 as oldest_due_seconds
    from jobs where run_at <= now() and (locked_until is null or locked_until < now())
    group by kind order by kind`;
}

/**
 * Makes the job with `uniqueKey` due in `delayMs`, creating it if there is none. A job a
 * worker is running right now is not moved (that run's outcome would overwrite it) but
 * marked `rerun`: when that run completes or reschedules it, it is due again at once.
 */
export async function scheduleKeyedJob(sql: Queryable, job: NewJob & { uniqueKey: string }): Promise<void> {
  const delay = job.delayMs ?? 0;
  await sql`
    insert into jobs (kind, payload, run_at, unique_key)
    values (${job.kind}, ${sql.json((job.payload ?? {}) as never)}, now() + make_interval(secs => ${delay / 1000}), ${job.uniqueKey})
    on conflict (unique_key) do update set
      run_at = case when jobs.locked_until >= now() then jobs.run_at else excluded.run_at end,
      attempts = case when jobs.locked_until >= now() then jobs.attempts else 0 end,
      rerun = coalesce(jobs.locked_until >= now(), false)`;
}

/** The channel on which instances announce enqueued jobs (the payload is the job's kind). */
export const JOBS_CHANNEL = 'ecf_jobs';

/** Tells every listening instance that jobs of these kinds were enqueued (delivered on commit). */
export async function notifyJobs(sql: Queryable, kinds: readonly string[]): Promise<void> {
  if (kinds.length === 0) return;
  await sql`select pg_notify(${JOBS_CHANNEL}, k) from unnest(${kinds as string[]}::text[]) as k`;
}
