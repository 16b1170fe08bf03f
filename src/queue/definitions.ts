import type { Logger } from '../log.ts';
import type { JobKind, JobPayloads, RetryPolicy } from './kinds.ts';
import type { JobRow } from './queries.ts';

/** A planned wait (e.g. the authority still processing): not a failure, attempts reset. */
export interface Reschedule<K extends JobKind = JobKind> {
  retryIn: number;
  /** Replaces the job's payload for its next run. */
  payload?: JobPayloads[K];
}

/**
 * The handler deleted its job itself, in the statement that recorded its outcome, under the
 * same condition the runtime's completion has (still `owner`'s lease, no rerun asked): one
 * statement fewer per job. Returned only when that delete happened.
 */
export interface Completed {
  completed: true;
}

export interface JobContext {
  signal: AbortSignal;
  log: Logger;
  /** Who holds the job's lease: the `locked_by` a handler completing its own job checks. */
  owner: string;
  /**
   * Tells the runtime that this run scheduled a job of its kinds, due in `delayMs` (a status
   * query after a submission): it is claimed then, not at the next poll. Jobs scheduled without
   * telling are found by polling.
   */
  scheduled(delayMs: number): void;
}

/** The handler of one kind: it is given that kind's payload, typed (JobPayloads). */
export interface JobDefinition<K extends JobKind = JobKind> {
  run(job: JobRow<K>, ctx: JobContext): Promise<Reschedule<K> | Completed | void>;
  /** Called once when the job has failed maxAttempts times, before it is deleted. */
  exhausted?(job: JobRow<K>, error: unknown): Promise<void>;
  /** Overrides the kind's default retry policy (from configuration). */
  policy?: Partial<RetryPolicy>;
  /**
   * At most `limit` jobs with the same value of the payload field `by` (e.g. one tenant's)
   * run at once in this runtime, so one group cannot take every slot.
   */
  group?: JobGroup<K>;
}

export interface JobGroup<K extends JobKind = JobKind> {
  by: keyof JobPayloads[K] & string;
  limit: number;
  burst?: GroupBurst;
}

/**
 * A group whose jobs are quick may run up to `limit` at once: while its last job finished
 * within `whileUnderMs` and none of its running ones has run that long. The group's own limit
 * is there for jobs that hold their slots (a slow webhook receiver); a group that turns slow is
 * back to it within `whileUnderMs` (groups.ts).
 */
export interface GroupBurst {
  limit: number;
  whileUnderMs: number;
}

/** The handlers a runtime runs, each typed by its kind. */
export type JobDefinitions = { [K in JobKind]?: JobDefinition<K> };

export interface RuntimeOptions {
  pollIntervalMs: number;
  batchSize: number;
  concurrency: number;
  leaseMs: number;
}
