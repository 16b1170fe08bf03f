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
  /**
   * Recreates the jobs of up to `limit` records without one, calling `recreated` as each job
   * is added (not once at the end: see repairMissingJobs); resolves to how many it found.
   */
  repair(sql: Queryable, limit: number, recreated: () => void): Promise<number>;
}

const UNIQUE_KEY = 'maintenance.repair';
const BATCH = 200;
/** Enough for 10,000 records a run; the next run takes the rest. */
const MAX_BATCHES = 50;

export async function scheduleRepair(sql: Sql): Promise<void> {
  await insertJob(sql, { kind: 'maintenance.repair', uniqueKey: UNIQUE_KEY });
}

/**
 * Runs every repairer, reporting each recreated job as soon as its insert has answered. A
 * run that fails partway (its connection lost) has still added the jobs before the failure,
 * and the next run does not find them missing again: counted only at the end of a batch,
 * they were never counted at all.
 */
export async function repairMissingJobs(
  sql: Sql,
  repairers: readonly Repairer[],
  onRepaired: (kind: JobKind, jobs: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  for (const repairer of repairers) {
    const recreated = () => onRepaired(repairer.kind, 1);
    for (let batch = 0; batch < MAX_BATCHES && signal?.aborted !== true; batch++) {
      if ((await repairer.repair(sql, BATCH, recreated)) < BATCH) break;
    }
  }
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
      const counts = new Map<JobKind, number>();
      try {
        await repairMissingJobs(sql, repairers, (kind, jobs) => {
          counts.set(kind, (counts.get(kind) ?? 0) + jobs);
          onRepaired(kind, jobs);
        }, ctx.signal);
      } finally {
        // Also when the run failed partway: the jobs it added before that stay added.
        for (const r of repairers) {
          const jobs = counts.get(r.kind) ?? 0;
          if (jobs > 0) log.warn('recreated missing jobs: work in flight had lost its job', { kind: r.kind, what: r.what, jobs });
        }
      }
      return { retryIn: everyMs };
    },
  };
}
