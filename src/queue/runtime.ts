import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log.ts';
import type { Completed, JobDefinition, JobDefinitions, Reschedule, RuntimeOptions } from './definitions.ts';
import { JOB_KINDS, backoffMs, type JobKind, type RetryPolicy } from './kinds.ts';
import { CompletionBatcher } from './completions.ts';
import { claimJobs, completeJob, releaseJobs, renewLeases, rescheduleJob, type JobRow, type SkippedGroup } from './queries.ts';
import { errorMessage } from '../errors.ts';

export type { Completed, JobContext, JobDefinition, JobDefinitions, Reschedule, RuntimeOptions } from './definitions.ts';

/** The group a job belongs to (JobDefinition.group): `key` is unique across kinds. */
interface Group extends SkippedGroup {
  key: string;
  limit: number;
}

/** A job claimed ahead of a free slot, and until when (local clock) its lease surely holds. */
interface Prefetched {
  job: JobRow;
  leaseUntil: number;
  group: Group | null;
}

interface ActiveJob {
  controller: AbortController;
  done: Promise<void>;
  /** The handler has returned: only its outcome is still being written. */
  settled: boolean;
  group: Group | null;
}

/** A job of a group with no free slot and enough jobs waiting is put back for this long, about. */
const GROUP_FULL_RETRY_MS = 100;

function describe(err: unknown): string {
  return errorMessage(err).slice(0, 2000);
}

/**
 * Claims jobs from the jobs table and runs them, at most `concurrency` at once. Each claim
 * asks for every free slot plus one batch (`batchSize`) ahead, kept in a local prefetch
 * queue, so a finished job's slot is filled at once, without waiting for a claim. A claim
 * that comes back full means more work is waiting, so it claims again as soon as half a
 * batch fits; otherwise it sleeps
 * `pollIntervalMs` unless nudged (a job enqueued by this process, or a wake-up from another
 * instance). Finished jobs are deleted in batches (CompletionBatcher). Every write after the
 * claim is conditioned on still owning the lease, so a worker that lost its lease (paused,
 * partitioned) cannot complete or reschedule a job someone else now runs.
 *
 * A job may outlast the lease (a DGII submission makes several calls with long timeouts, a
 * webhook attempt waits up to its timeout), so the leases of running, prefetched and
 * finishing jobs are renewed every third of the lease in one statement. A running job whose
 * renewal finds it owned by another worker (its lease had expired, e.g. this process
 * stalled) has its signal aborted: someone else runs it now, and this run's writes would be
 * refused anyway. A prefetched job is started only while at least two thirds of its lease
 * surely remain, so a stalled process never starts a job whose lease may have lapsed; a
 * killed process's prefetched jobs are taken over once their leases expire.
 *
 * A kind may bound how many jobs of one group (a payload field, e.g. the tenant) run at once
 * (JobDefinition.group). A prefetched job whose group is at its limit waits here, held (and
 * renewed like any prefetched job), until a job of its group finishes; held jobs do not count
 * against the room to claim, so they cannot keep other groups' jobs out. A group with `limit`
 * jobs held is left out of claims; a job claimed beyond that is put back for a moment.
 */
export class WorkerRuntime {
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  /** Started jobs, until their outcome is written. */
  private readonly active = new Map<string, ActiveJob>();
  private readonly prefetched: Prefetched[] = [];
  /** Prefetched jobs whose group was at its limit, by group key, oldest first. */
  private readonly held = new Map<string, Prefetched[]>();
  private heldCount = 0;
  /** Started jobs whose handler has not returned, by group key. */
  private readonly groupRunning = new Map<string, number>();
  /** Groups the last claim left out; one of them has room again (a claim may find more). */
  private skipped = new Set<string>();
  private skippedReopened = false;
  /** Started jobs whose handler has not returned: what `concurrency` bounds. */
  private runningCount = 0;
  /** The last claim came back full: more jobs are probably due. */
  private backlog = false;
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
  private readonly completions: CompletionBatcher;

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
    this.completions = new CompletionBatcher(sql, this.owner);
  }

  /** Jobs started and not yet finished (their outcome not yet written). */
  get activeCount(): number {
    return this.active.size;
  }

  /** Jobs claimed and waiting in this process for a free slot. */
  get prefetchedCount(): number {
    return this.prefetched.length + this.heldCount;
  }

  /** The kinds this runtime runs. */
  get jobKinds(): readonly JobKind[] {
    return this.kinds;
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

  /**
   * Stops claiming and gives back the prefetched jobs at once; waits up to `graceMs` for
   * running jobs, then releases the rest.
   */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.nudge();
    await this.loop;
    const waiting = [...this.prefetched.splice(0), ...this.takeHeld()].map((p) => p.job.id);
    if (waiting.length > 0) {
      await releaseJobs(this.sql, waiting, this.owner).catch((err: unknown) => this.log.warn('could not release prefetched jobs', { err }));
    }
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
    const waiting = [...this.prefetched, ...[...this.held.values()].flat()];
    if (running.length === 0 && waiting.length === 0) return;
    const asked = performance.now();
    let held: Set<string>;
    try {
      held = await renewLeases(this.sql, [...running.map(([id]) => id), ...waiting.map((p) => p.job.id)], this.owner, this.options.leaseMs);
    } catch (err) {
      // Unknown whether the leases hold: keep running; the owner checks guard the writes,
      // and prefetched jobs are started only while their last known lease lasts.
      this.log.warn('could not renew job leases', { err, jobs: running.length + waiting.length });
      return;
    }
    for (const p of waiting) {
      if (held.has(p.job.id)) p.leaseUntil = asked + this.options.leaseMs;
      else this.dropPrefetched(p);
    }
    for (const [id, entry] of running) {
      // A settled run's lease is gone because its outcome was written (deleted, rescheduled):
      // nothing to abort. Compared by entry: the job may have been claimed anew meanwhile.
      if (held.has(id) || entry.settled || this.active.get(id) !== entry) continue;
      this.log.warn('a running job lost its lease to another worker; aborting this run', { job: id });
      entry.controller.abort();
    }
  }

  private dropPrefetched(p: Prefetched): void {
    const i = this.prefetched.indexOf(p);
    if (i >= 0) this.prefetched.splice(i, 1);
    const queue = p.group === null ? undefined : this.held.get(p.group.key);
    const j = queue?.indexOf(p) ?? -1;
    if (queue !== undefined && j >= 0) {
      queue.splice(j, 1);
      this.heldCount--;
      if (queue.length === 0) this.held.delete((p.group as Group).key);
    }
  }

  /** Empties the held jobs, returning them. */
  private takeHeld(): Prefetched[] {
    const all = [...this.held.values()].flat();
    this.held.clear();
    this.heldCount = 0;
    return all;
  }

  private groupOf(job: JobRow): Group | null {
    const group = (this.definitions[job.kind] as JobDefinition | undefined)?.group;
    if (group === undefined) return null;
    const value = String((job.payload as Record<string, unknown>)[group.by]);
    return { kind: job.kind, field: group.by, value, key: `${job.kind}\u0000${value}`, limit: group.limit };
  }

  private hasRoom(group: Group | null): boolean {
    return group === null || (this.groupRunning.get(group.key) ?? 0) < group.limit;
  }

  /** Groups with as many jobs held as they may run: the next claim leaves them out. */
  private fullGroups(): Group[] {
    const full: Group[] = [];
    for (const queue of this.held.values()) {
      const group = queue[0]?.group;
      if (group != null && queue.length >= group.limit) full.push(group);
    }
    return full;
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
    const { batchSize, pollIntervalMs, leaseMs } = this.options;
    let failures = 0;
    while (this.running) {
      this.startPrefetched();
      // Enough for every free slot plus one batch ahead; claim once at least half a batch fits.
      const room = this.roomToClaim();
      if (room < batchSize / 2) {
        await this.sleep(pollIntervalMs);
        continue;
      }
      const asked = performance.now();
      let jobs: JobRow[];
      const skip = this.fullGroups();
      this.skipped = new Set(skip.map((g) => g.key));
      this.skippedReopened = false;
      try {
        const mine = [...this.active.keys(), ...this.prefetched.map((p) => p.job.id), ...[...this.held.values()].flat().map((p) => p.job.id)];
        jobs = await claimJobs(this.sql, this.kinds, this.owner, room, leaseMs, mine, skip.map(({ kind, field, value }) => ({ kind, field, value })));
        failures = 0;
      } catch (err) {
        failures++;
        this.backlog = false;
        if (failures === 1 || failures % 30 === 0) this.log.warn('could not claim jobs', { err, failures });
        await this.sleep(Math.min(pollIntervalMs * 2 ** Math.min(failures, 5), 30_000));
        continue;
      }
      for (const job of jobs) this.prefetched.push({ job, leaseUntil: asked + leaseMs, group: this.groupOf(job) });
      this.backlog = jobs.length === room;
      this.startPrefetched();
      // A full claim, or a group left out that has room again: claim again as soon as there
      // is room (a finished job nudges).
      if (!(this.backlog || this.skippedReopened) || this.roomToClaim() < batchSize / 2) await this.sleep(pollIntervalMs);
    }
  }

  private roomToClaim(): number {
    return this.options.concurrency + this.options.batchSize - this.runningCount - this.prefetched.length;
  }

  /**
   * Starts prefetched jobs while slots are free, held ones first (they were claimed earlier);
   * a job whose lease may have lapsed is given back, one whose group is at its limit held.
   */
  private startPrefetched(): void {
    const { concurrency } = this.options;
    for (const [key, queue] of this.held) {
      while (this.running && this.runningCount < concurrency && queue.length > 0 && this.hasRoom((queue[0] as Prefetched).group)) {
        const p = queue.shift() as Prefetched;
        this.heldCount--;
        if (this.lapsing(p)) continue;
        this.launch(p.job, p.group);
      }
      if (queue.length === 0) this.held.delete(key);
    }
    while (this.running && this.runningCount < concurrency && this.prefetched.length > 0) {
      const p = this.prefetched.shift() as Prefetched;
      if (this.lapsing(p)) continue;
      if (this.hasRoom(p.group)) this.launch(p.job, p.group);
      else this.hold(p);
    }
  }

  /** A job whose lease may lapse before it could finish is given back instead of started. */
  private lapsing(p: Prefetched): boolean {
    if (performance.now() <= p.leaseUntil - this.options.leaseMs / 3) return false;
    // Released only if still ours; if someone took it over, it is theirs to run.
    void releaseJobs(this.sql, [p.job.id], this.owner).catch(() => {});
    return true;
  }

  /**
   * Keeps a job of a group at its limit until one of the group's jobs finishes. Past `limit`
   * held, it goes back to the table for a moment (as a planned wait: no attempt counted),
   * where another instance may take it, or this one once the group has room.
   */
  private hold(p: Prefetched): void {
    const group = p.group as Group;
    const queue = this.held.get(group.key) ?? [];
    if (queue.length < group.limit) {
      queue.push(p);
      this.held.set(group.key, queue);
      this.heldCount++;
      return;
    }
    const delayMs = GROUP_FULL_RETRY_MS + Math.floor(Math.random() * 2 * GROUP_FULL_RETRY_MS);
    void rescheduleJob(this.sql, p.job.id, this.owner, { delayMs, error: null, countAttempt: false }).catch(() => {});
  }

  private launch(job: JobRow, group: Group | null): void {
    const entry: ActiveJob = { controller: new AbortController(), done: Promise.resolve(), settled: false, group };
    if (group !== null) this.groupRunning.set(group.key, (this.groupRunning.get(group.key) ?? 0) + 1);
    this.runningCount++;
    entry.done = this.execute(job, entry).finally(() => {
      if (this.active.get(job.id) === entry) this.active.delete(job.id);
    });
    this.active.set(job.id, entry);
  }

  /** A handler returned: its slot goes to the next prefetched job, and the loop may claim more. */
  private settle(entry: ActiveJob): void {
    entry.settled = true;
    this.runningCount--;
    const group = entry.group;
    if (group !== null) {
      const left = (this.groupRunning.get(group.key) ?? 1) - 1;
      if (left <= 0) this.groupRunning.delete(group.key);
      else this.groupRunning.set(group.key, left);
    }
    this.startPrefetched();
    if (group !== null && this.skipped.has(group.key) && (this.held.get(group.key)?.length ?? 0) < group.limit) {
      this.skipped.delete(group.key);
      this.skippedReopened = true;
    }
    if ((this.backlog || this.skippedReopened) && this.roomToClaim() >= this.options.batchSize / 2) this.nudge();
  }

  private async execute(job: JobRow, entry: ActiveJob): Promise<void> {
    const definition = this.definitions[job.kind] as JobDefinition | undefined;
    const log = this.log.child({ job: job.id, kind: job.kind });
    const signal = entry.controller.signal;
    let settled = false;
    try {
      if (definition === undefined) throw new Error(`no handler for job kind ${job.kind}`);
      let outcome: Reschedule | Completed | void;
      try {
        outcome = await definition.run(job, { signal, log, owner: this.owner });
      } finally {
        settled = true;
        this.settle(entry);
      }
      if (signal.aborted) return;
      if (outcome === undefined) await this.completions.complete(job.id);
      else if ('completed' in outcome) return;
      else await rescheduleJob(this.sql, job.id, this.owner, { delayMs: outcome.retryIn, error: null, countAttempt: false, payload: outcome.payload });
    } catch (err) {
      if (!settled) this.settle(entry);
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
