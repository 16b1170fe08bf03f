import type { Queryable } from '../db/connect.ts';
import { BatchLoader } from '../lib/batch-loader.ts';
import { completeJobs } from './queries.ts';

/**
 * Finished jobs' deletions, written together: one `DELETE … WHERE id = ANY(…)` for the jobs that
 * finish while the previous one is written (a serial BatchLoader: group commit), so a quiet queue
 * completes each job at once and a busy one in batches as large as the commits are slow. A job
 * stays leased (and renewed) until its batch is written: a process killed meanwhile leaves it to
 * be taken over when the lease expires, and its run repeated, as a process killed just before a
 * single delete would. Resolves once the job's deletion is written (or found no longer owned).
 */
export function completionWriter(sql: Queryable, owner: string): (jobId: string) => Promise<unknown> {
  const loader = new BatchLoader<string, true>(async (ids) => {
    await completeJobs(sql, ids, owner);
    return new Map();
  }, 1_000, 'turn', true);
  return (jobId) => loader.get(jobId);
}
