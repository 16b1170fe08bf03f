import type { Sql } from '../db/connect.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { JobDefinition } from './definitions.ts';
import { JOB_KINDS, backoffMs, type RetryPolicy } from './kinds.ts';
import { completeJob, rescheduleJob, type JobRow } from './queries.ts';

// What a WorkerRuntime does with a job whose handler threw: retry it with backoff, or, past
// its kind's last attempt, run `exhausted` and delete it. Every write is conditioned on
// `owner` still holding the lease.

function describe(err: unknown): string {
  return errorMessage(err).slice(0, 2000);
}

/** Returns the wait before the job's next attempt, or null when it was its last. */
export async function recordFailure(sql: Sql, owner: string, job: JobRow, definition: JobDefinition | undefined, err: unknown, log: Logger): Promise<number | null> {
  const policy: RetryPolicy = { ...JOB_KINDS[job.kind], ...definition?.policy };
  if (job.attempts >= policy.maxAttempts) {
    log.error('job failed for the last time', { attempts: job.attempts, error: describe(err) });
    await definition?.exhausted?.(job, err);
    await completeJob(sql, job.id, owner);
    return null;
  }
  const delayMs = backoffMs(policy, job.attempts);
  log.warn('job failed; will retry', { attempts: job.attempts, retryInMs: delayMs, error: describe(err) });
  return (await rescheduleJob(sql, job.id, owner, { delayMs, error: describe(err), countAttempt: true })) ? delayMs : null;
}
