import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log.ts';
import type { Completed, JobDefinition, JobDefinitions, Reschedule, RuntimeOptions } from './definitions.ts';
import { type JobKind } from './kinds.ts';
import { recordFailure } from './failures.ts';
import { completionWriter } from './completions.ts';
import { Sleeper } from './sleeper.ts';
import { GROUP_FULL_RETRY_MS, GroupSlots, type Group, type Prefetched } from './groups.ts';
import { claimJobs, releaseJobs, renewLeases, rescheduleJob, type JobRow } from './queries.ts';

export type { Completed, JobContext, JobDefinition, JobDefinitions, Reschedule, RuntimeOptions } from './definitions.ts';

interface ActiveJob {
  controller: AbortController;
  done: Promise<void>;
  /** The handler has returned: only its outcome is still being written. */
  settled: boolean;
  group: Group | null;
  /** performance.now() when it started (its group's pace, groups.ts). */
  startedAt: number;
}

/**
 * Claims jobs from the jobs table and runs them, at most `concurrency` at once. Each claim
 * asks for every free slot plus one batch (`batchSize`) ahead, kept in a local prefetch
 * queue, so a finished job's slot is filled at once, without waiting for a claim. A claim
 * that comes back full means more work is waiting, so it claims again as soon as half the
 * slots (or half a batch, if more) fit; otherwise it sleeps `pollIntervalMs` unless nudged (a
 * job enqueued by this process, or a wake-up from another instance), or until a job this
 * process scheduled for later falls due (`scheduled`, sleeper.ts). Finished jobs are deleted in
 * batches (completions.ts). Every write after the claim is conditioned on still owning the
 * lease, so a worker that lost its lease (paused, partitioned) cannot complete or reschedule a
 * job someone else now runs.
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
  /** Jobs of groups at their limit, held here (JobDefinition.group). */
  private readonly groups: GroupSlots;
  /** Started jobs whose handler has not returned: what `concurrency` bounds. */
  private runningCount = 0;
  /** The last claim came back full: more jobs are probably due. False while a claim is in flight: a job ending then does not nudge for another, the loop decides after it. */
  private backlog = false;
  private readonly kinds: JobKind[];
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  /** Waits between claims: for the poll interval, until nudged, or until a job falls due. */
  private readonly sleeper = new Sleeper();
  private readonly onScheduled = (delayMs: number) => this.scheduled(delayMs);
  private renewTimer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> = Promise.resolve();
  private readonly sql: Sql;
  private readonly log: Logger;
  private readonly options: RuntimeOptions;
  private readonly definitions: JobDefinitions;
  /** Deletes a finished job, with the others that finish meanwhile (completions.ts). */
  private readonly complete: (jobId: string) => Promise<unknown>;

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
    this.complete = completionWriter(sql, this.owner);
    // A claim takes up to every free slot plus a batch ahead (roomToClaim): that much of one group may come at once.
    this.groups = new GroupSlots(definitions, options.concurrency + options.batchSize);
  }

  /** Jobs started and not yet finished (their outcome not yet written). */
  get activeCount(): number {
    return this.active.size;
  }

  /** Jobs claimed and waiting in this process for a free slot. */
  get prefetchedCount(): number {
    return this.prefetched.length + this.groups.heldCount;
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
    this.sleeper.nudge();
  }

  /** A job of `kind` with `payload` was enqueued: a nudge, unless it waits for its group's room. */
  nudgeFor(kind: JobKind, payload: Record<string, unknown>): void {
    if (!this.groups.waitsForRoom(kind, payload)) this.nudge();
  }

  /**
   * A job of this runtime's kinds was scheduled `delayMs` from now (a handler's follow-up, a
   * retry): it is claimed when due rather than at the next poll. Due now, it is a nudge.
   */
  scheduled(delayMs: number): void {
    this.sleeper.dueIn(delayMs);
  }

  /**
   * Stops claiming and gives back the prefetched jobs at once; waits up to `graceMs` for
   * running jobs, then releases the rest.
   */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.nudge();
    await this.loop;
    const waiting = [...this.prefetched.splice(0), ...this.groups.takeHeld()].map((p) => p.job.id);
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
    const waiting = [...this.prefetched, ...this.groups.allHeld()];
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
    else this.groups.drop(p);
  }

  private async pollLoop(): Promise<void> {
    const { pollIntervalMs, leaseMs } = this.options;
    let failures = 0;
    while (this.running) {
      // Awake: the jobs due by now are this turn's to claim (or, with no room, the next's).
      this.sleeper.awake();
      this.startPrefetched();
      // Enough for every free slot plus one batch ahead; claim once enough fits (claimAtLeast).
      const room = this.roomToClaim();
      if (room < this.claimAtLeast) {
        await this.sleeper.sleep(pollIntervalMs);
        continue;
      }
      const asked = performance.now();
      let jobs: JobRow[];
      const skip = this.groups.skipForClaim();
      this.sleeper.claimStarts();
      this.backlog = false;
      try {
        const mine = [...this.active.keys(), ...this.prefetched.map((p) => p.job.id), ...this.groups.allHeld().map((p) => p.job.id)];
        jobs = await claimJobs(this.sql, this.kinds, this.owner, room, leaseMs, mine, skip);
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1 || failures % 30 === 0) this.log.warn('could not claim jobs', { err, failures });
        await this.sleeper.sleep(Math.min(pollIntervalMs * 2 ** Math.min(failures, 5), 30_000));
        continue;
      }
      for (const job of jobs) this.prefetched.push({ job, leaseUntil: asked + leaseMs, group: this.groups.groupOf(job) });
      this.backlog = jobs.length === room;
      this.startPrefetched();
      // A full claim, or a group left out that has room again: claim again as soon as there
      // is room (a finished job nudges).
      if (!(this.backlog || this.groups.reopened) || this.roomToClaim() < this.claimAtLeast) await this.sleeper.sleep(pollIntervalMs);
    }
  }

  /**
   * The room a claim waits for: half the slots, or half a batch when that is more. Under load,
   * claiming as soon as half a batch (10 jobs by default) fits made many small claims, each a
   * round trip; waiting for half the slots drains a backlog of short jobs 35–45 % faster
   * (27,000 → 34,000–40,000 jobs/s, docs/benchmarks.md). The slots do not wait for it: the batch
   * claimed ahead keeps them busy, all but the few between a batch and half the slots.
   */
  private get claimAtLeast(): number {
    return Math.max(this.options.batchSize, this.options.concurrency) / 2;
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
    const canStart = () => this.running && this.runningCount < concurrency;
    this.groups.release(canStart, (p) => {
      if (!this.lapsing(p)) this.launch(p.job, p.group);
    });
    while (canStart() && this.prefetched.length > 0) {
      const p = this.prefetched.shift() as Prefetched;
      if (this.lapsing(p)) continue;
      if (this.groups.hasRoom(p.group)) this.launch(p.job, p.group);
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
   * Keeps a job of a group at its limit until one of the group's jobs finishes. Past `limit` and
   * a claim's worth held (GroupSlots.hold), it goes back to the table for a moment (as a planned
   * wait: no attempt counted), where another instance may take it, or this one once the group has room.
   */
  private hold(p: Prefetched): void {
    if (this.groups.hold(p)) return;
    const delayMs = GROUP_FULL_RETRY_MS + Math.floor(Math.random() * 2 * GROUP_FULL_RETRY_MS);
    void rescheduleJob(this.sql, p.job.id, this.owner, { delayMs, error: null, countAttempt: false }).then(() => this.scheduled(delayMs), () => {});
  }

  private launch(job: JobRow, group: Group | null): void {
    const entry: ActiveJob = { controller: new AbortController(), done: Promise.resolve(), settled: false, group, startedAt: performance.now() };
    this.groups.started(group, entry.startedAt);
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
    this.groups.finished(entry.group, entry.startedAt);
    this.startPrefetched();
    this.groups.reopen(entry.group);
    if ((this.backlog || this.groups.reopened) && this.roomToClaim() >= this.claimAtLeast) this.nudge();
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
        outcome = await definition.run(job, { signal, log, owner: this.owner, scheduled: this.onScheduled });
      } finally {
        settled = true;
        this.settle(entry);
      }
      if (signal.aborted) return;
      if (outcome === undefined) await this.complete(job.id);
      else if ('completed' in outcome) return;
      else if (await rescheduleJob(this.sql, job.id, this.owner, { delayMs: outcome.retryIn, error: null, countAttempt: false, payload: outcome.payload })) this.scheduled(outcome.retryIn);
    } catch (err) {
      if (!settled) this.settle(entry);
      // An aborted run's job belongs to someone else now (or was released at shutdown): its
      // failure is not the job's, and must neither count an attempt nor run `exhausted`.
      if (signal.aborted) return;
      const retryIn = await recordFailure(this.sql, this.owner, job, definition, err, log).catch((e: unknown) => log.error('could not record job failure; its lease will expire', { err: e }));
      if (typeof retryIn === 'number') this.scheduled(retryIn);
    }
  }
}
