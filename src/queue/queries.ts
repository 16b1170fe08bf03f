import type { Queryable } from '../db/connect.ts';
import type { JobKind } from './kinds.ts';

export interface JobRow {
  id: string;
  kind: JobKind;
  payload: Record<string, unknown>;
  runAt: Date;
  attempts: number;
  lastError: string | null;
}

export interface NewJob {
  kind: JobKind;
  payload?: Record<string, unknown>;
  /** Delay before the job may run. */
  delayMs?: number;
  /** A job with this key is not added while another with the same key is pending. */
  uniqueKey?: string;
}

export async function insertJob(sql: Queryable, job: NewJob): Promise<string | null> {
  const delay = job.delayMs ?? 0;
  const [row] = await sql<{ id: string }[]>`
    insert into jobs (kind, payload, run_at, unique_key)
    values (${job.kind}, ${sql.json((job.payload ?? {}) as never)}, now() + make_interval(secs => ${delay / 1000}), ${job.uniqueKey ?? null})
    on conflict (unique_key) do nothing
    returning id`;
  return row?.id ?? null;
}

/**
 * Claims up to `limit` due jobs for `owner` for `leaseMs`. SKIP LOCKED lets concurrent
 * claimers take disjoint sets; an expired lease (its worker died) is due again.
 */
export async function claimJobs(sql: Queryable, kinds: readonly JobKind[], owner: string, limit: number, leaseMs: number): Promise<JobRow[]> {
  return sql<JobRow[]>`
    with next as (
      select id from jobs
      where run_at <= now()
        and (locked_until is null or locked_until < now())
        and kind = any(${kinds as string[]})
      order by run_at, id
      limit ${limit}
      for update skip locked
    )
    update jobs j
    set locked_until = now() + make_interval(secs => ${leaseMs / 1000}), locked_by = ${owner}, attempts = j.attempts + 1
    from next where j.id = next.id
    returning j.id, j.kind, j.payload, j.run_at, j.attempts, j.last_error`;
}

/** Deletes a finished job, but only while `owner` still holds its lease. */
export async function completeJob(sql: Queryable, id: string, owner: string): Promise<boolean> {
  const rows = await sql`delete from jobs where id = ${id} and locked_by = ${owner} returning id`;
  return rows.count > 0;
}

/** Puts a job back for a later run. `countAttempt: false` for planned waits (polling). */
export async function rescheduleJob(
  sql: Queryable,
  id: string,
  owner: string,
  r: { delayMs: number; error: string | null; countAttempt: boolean; payload?: Record<string, unknown> },
): Promise<boolean> {
  const rows = await sql`
    update jobs set
      run_at = now() + make_interval(secs => ${r.delayMs / 1000}),
      locked_until = null, locked_by = null,
      last_error = ${r.error},
      attempts = case when ${r.countAttempt} then attempts else 0 end,
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

/**
 * Makes the job with `uniqueKey` due in `delayMs`, creating it if there is none. A job a
 * worker is running right now is left alone (that run decides what happens next).
 */
export async function scheduleKeyedJob(sql: Queryable, job: NewJob & { uniqueKey: string }): Promise<void> {
  const delay = job.delayMs ?? 0;
  await sql`
    insert into jobs (kind, payload, run_at, unique_key)
    values (${job.kind}, ${sql.json((job.payload ?? {}) as never)}, now() + make_interval(secs => ${delay / 1000}), ${job.uniqueKey})
    on conflict (unique_key) do update set run_at = excluded.run_at, attempts = 0
    where jobs.locked_until is null or jobs.locked_until < now()`;
}

export async function deleteKeyedJob(sql: Queryable, uniqueKey: string): Promise<void> {
  await sql`delete from jobs where unique_key = ${uniqueKey} and (locked_until is null or locked_until < now())`;
}
