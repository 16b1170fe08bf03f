import type { Queryable, Sql } from '../db/connect.ts';
import type { Logger } from '../log.ts';
import type { JobKind } from '../queue/kinds.ts';
import { insertJob } from '../queue/queries.ts';
import type { JobDefinition } from '../queue/runtime.ts';

// Work in flight keeps its job: each is written in the transaction that starts the work and
// deleted only once the work has moved on. A write lost anyway (the database driver once sent
// a transaction on a connection it had not reserved, src/db/transaction.ts) would leave a
// delivery pending or a document in flight forever, never retried nor given up. So a periodic
// job, unique across instances by its key, looks for such records and gives them their job
// back (src/maintenance/repairers.ts lists what it looks for), and /metrics counts them.

export interface Repairer {
  /** The kind of job it recreates: the `kind` label of ecf_repaired_jobs_total. */
  kind: JobKind;
  /** What it looks at, for the log. */
  what: string;
  /** Recreates the jobs of up to `limit` records without one: how many it found, how many jobs it added. */
  repair(sql: Queryable, limit: number): Promise<{ found: number; recreated: number }>;
}

const UNIQUE_KEY = 'maintenance.repair';
const BATCH = 200;
/** Enough for 10,000 records a run; the next run takes the rest. */
const MAX_BATCHES = 50;

export async function scheduleRepair(sql: Sql): Promise<void> {
  await insertJob(sql, { kind: 'maintenance.repair', uniqueKey: UNIQUE_KEY });
}

/** Runs every repairer, reporting each batch's recreated jobs as it goes. */
export async function repairMissingJobs(
  sql: Sql,
  repairers: readonly Repairer[],
  onRepaired: (kind: JobKind, jobs: number) => void,
  signal?: AbortSignal,
): Promise<Map<Repairer, number>> {
  const counts = new Map<Repairer, number>();
  for (const repairer of repairers) {
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES && signal?.aborted !== true; batch++) {
      const { found, recreated } = await repairer.repair(sql, BATCH);
      total += recreated;
      if (recreated > 0) onRepaired(repairer.kind, recreated);
      if (found < BATCH) break;
    }
    counts.set(repairer, total);
  }
  return counts;
}

export function repairJob(deps: {
  sql: Sql;
  repairers: readonly Repairer[];
  everyMs: number;
  log: Logger;
  onRepaired: (kind: JobKind, jobs: number) => void;
}): JobDefinition<'maintenance.repair'> {
  const { sql, repairers, everyMs, log, onRepaired } = deps;
  // Every series at 0 from the start, so a rate over it sees the first repair.
  for (const r of repairers) onRepaired(r.kind, 0);
  return {
    async run(_job, ctx) {
      const counts = await repairMissingJobs(sql, repairers, onRepaired, ctx.signal);
      for (const [r, jobs] of counts) {
        if (jobs > 0) log.warn('recreated missing jobs: work in flight had lost its job', { kind: r.kind, what: r.what, jobs });
      }
      return { retryIn: everyMs };
    },
  };
}
