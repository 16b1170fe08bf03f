import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log.ts';
import { JOB_KINDS, backoffMs, type JobKind, type JobPayloads, type RetryPolicy } from './kinds.ts';
import { claimJobs, completeJob, releaseJobs, renewLeases, rescheduleJob, type JobRow } from './queries.ts';
import { errorMessage } from '../errors.ts';

/** A planned wait (e.g. the authority still processing): not a failure, attempts reset. */
export interface Reschedule<K extends JobKind = JobKind> {
  retryIn: number;
  /** Replaces the job's payload for its next run. */
  payload?: JobPayloads[K];
}

export interface JobContext {
  signal: AbortSignal;
  log: Logger;
}

/** The handler of one kind: it is given that kind's payload, typed (JobPayloads). */
export interface JobDefinition<K extends JobKind = JobKind> {
  run(job: JobRow<K>, ctx: JobContext): Promise<Reschedule<K> | void>;
  /** Called once when the job has failed maxAttempts times, before it is deleted. */
  exhausted?(job: JobRow<K>, error: unknown): Promise<void>;
  /** Overrides the kind's default retry policy (from configuration). */
  policy?: Partial<RetryPolicy>;
}

/** The handlers a runtime runs, each typed by its kind. */
export type JobDefinitions = { [K in JobKind]?: JobDefinition<K> };

export interface RuntimeOptions {
  pollIntervalMs: number;
  batchSize: number;
  concurrency: number;
  leaseMs: number;
}

interface ActiveJob {
  controller: AbortController;
  done: Promise<void>;
  /** The handler has returned: only its outcome is still being written. */
  settled: boolean;
}

function describe(err: unknown): string {
  return errorMessage(err).slice(0, 2000);
}

/**
 * Polls the jobs table and runs what it claims, at most `concurrency` at once. A batch
 * that comes back full means more work is waiting, so it polls again at once; otherwise
 * it sleeps `pollIntervalMs` unless nudged (a job enqueued by this process). Every write
 * after the claim is conditioned on still owning the lease, so a worker that lost its
 * lease (paused, partitioned) cannot complete or reschedule a job someone else now runs.
 *
 * A job may outlast the lease (a DGII submission makes several calls with long timeouts, a
 * webhook attempt waits up to its timeout), so the leases of running jobs are renewed every
 * third of the lease in one statement. A job whose renewal finds it owned by another
 * worker (its lease had expired, e.g. this process stalled) has its signal aborted: someone
 * else runs it now, and this run's writes would be refused anyway.
 */
export class WorkerRuntime {
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly active = new Map<string, ActiveJob>();
  private readonly kinds: JobKind[];
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> = Promise.resolve();
  /** A nudge that arrived while no one was sleeping (mid-claim): the next sleep is skipped. */
  private nudged = false;
  private readonly sql: Sql;
  private readonly log: Logger;
  private readonly options: RuntimeOptions;
  private readonly definitions: JobDefinitions;

  constructor(
    sql: Sql,
    log: Logger,
    options: RuntimeOptions,
    definitions: JobDefinitions,
  ) {
    this.sql = sql;
    this.log = log;
    this.options = options;
    this.definitions = definitions;
    this.kinds = Object.keys(definitions) as JobKind[];
  }

  get activeCount(): number {
    return this.active.size;
  }

  start(): void {
    if (this.running || this.kinds.length === 0) return;
    this.running = true;
    this.loop = this.pollLoop();
    this.scheduleRenewal();
  }

  /** Polls now instead of at the next interval. */
  nudge(): void {
    if (this.wake !== null) this.wake();
    else this.nudged = true;
  }

  /** Stops claiming, waits up to `graceMs` for running jobs, then releases the rest. */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.nudge();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.active.values()].map((a) => a.done)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    this.stopRenewal();
    await this.renewing;
    // Release before aborting: once released, the owner check makes whatever the aborted
    // handlers still write (complete, reschedule) a no-op.
    const unfinished = [...this.active.keys()];
    if (unfinished.length > 0) {
      await releaseJobs(this.sql, unfinished, this.owner).catch((err: unknown) => this.log.warn('could not release jobs', { err }));
      this.log.info('released unfinished jobs', { jobs: unfinished.length });
    }
    for (const a of this.active.values()) a.controller.abort();
  }

  private scheduleRenewal(): void {
    this.renewTimer = setTimeout(() => {
      this.renewing = this.renewLeases().finally(() => {
        if (this.renewTimer !== null) this.scheduleRenewal();
      });
    }, Math.max(1, Math.floor(this.options.leaseMs / 3)));
    this.renewTimer.unref();
  }

  private stopRenewal(): void {
    if (this.renewTimer !== null) clearTimeout(this.renewTimer);
    this.renewTimer = null;
  }

  private async renewLeases(): Promise<void> {
    const running = [...this.active.entries()];
    if (running.length === 0) return;
    let held: Set<string>;
    try {
      held = await renewLeases(this.sql, running.map(([id]) => id), this.owner, this.options.leaseMs);
    } catch (err) {
      // Unknown whether the leases hold: keep running; the owner checks guard the writes.
      this.log.warn('could not renew job leases', { err, jobs: running.length });
      return;
    }
    for (const [id, entry] of running) {
      // A settled run's lease is gone because its outcome was written (deleted, rescheduled):
      // nothing to abort. Compared by entry: the job may have been claimed anew meanwhile.
      if (held.has(id) || entry.settled || this.active.get(id) !== entry) continue;
      this.log.warn('a running job lost its lease to another worker; aborting this run', { job: id });
      entry.controller.abort();
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.nudged) {
      this.nudged = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        if (self.wake === done) self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  private async pollLoop(): Promise<void> {
    let failures = 0;
    while (this.running) {
      const free = this.options.concurrency - this.active.size;
      if (free <= 0) {
        await this.sleep(this.options.pollIntervalMs);
        continue;
      }
      const limit = Math.min(free, this.options.batchSize);
      let jobs: JobRow[];
      try {
        jobs = await claimJobs(this.sql, this.kinds, this.owner, limit, this.options.leaseMs, [...this.active.keys()]);
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1 || failures % 30 === 0) this.log.warn('could not claim jobs', { err, failures });
        await this.sleep(Math.min(this.options.pollIntervalMs * 2 ** Math.min(failures, 5), 30_000));
        continue;
      }
      for (const job of jobs) this.launch(job);
      if (jobs.length < limit) await this.sleep(this.options.pollIntervalMs);
    }
  }

  private launch(job: JobRow): void {
    const entry: ActiveJob = { controller: new AbortController(), done: Promise.resolve(), settled: false };
    entry.done = this.execute(job, entry).finally(() => {
      if (this.active.get(job.id) === entry) this.active.delete(job.id);
      // A slot opened: poll again if the loop was waiting for capacity.
      if (this.active.size === this.options.concurrency - 1) this.nudge();
    });
    this.active.set(job.id, entry);
  }

  private async execute(job: JobRow, entry: ActiveJob): Promise<void> {
    const definition = this.definitions[job.kind] as JobDefinition | undefined;
    const log = this.log.child({ job: job.id, kind: job.kind });
    const signal = entry.controller.signal;
    try {
      if (definition === undefined) throw new Error(`no handler for job kind ${job.kind}`);
      let outcome: Reschedule | void;
      try {
        outcome = await definition.run(job, { signal, log });
      } finally {
        entry.settled = true;
      }
      if (signal.aborted) return;
      if (outcome === undefined) await completeJob(this.sql, job.id, this.owner);
      else await rescheduleJob(this.sql, job.id, this.owner, { delayMs: outcome.retryIn, error: null, countAttempt: false, payload: outcome.payload });
    } catch (err) {
      // An aborted run's job belongs to someone else now (or was released at shutdown): its
      // failure is not the job's, and must neither count an attempt nor run `exhausted`.
      if (signal.aborted) return;
      await this.failed(job, definition, err, log).catch((e: unknown) => log.error('could not record job failure; its lease will expire', { err: e }));
    }
  }

  private async failed(job: JobRow, definition: JobDefinition | undefined, err: unknown, log: Logger): Promise<void> {
    const policy: RetryPolicy = { ...JOB_KINDS[job.kind], ...definition?.policy };
    if (job.attempts >= policy.maxAttempts) {
      log.error('job failed for the last time', { attempts: job.attempts, error: describe(err) });
      await definition?.exhausted?.(job, err);
      await completeJob(this.sql, job.id, this.owner);
      return;
    }
    const delayMs = backoffMs(policy, job.attempts);
    log.warn('job failed; will retry', { attempts: job.attempts, retryInMs: delayMs, error: describe(err) });
    await rescheduleJob(this.sql, job.id, this.owner, { delayMs, error: describe(err), countAttempt: true });
  }
}
