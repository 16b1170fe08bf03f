import { performance } from 'node:perf_hooks';
import type { GroupBurst, JobDefinition, JobDefinitions } from './definitions.ts';
import type { JobKind } from './kinds.ts';
import type { JobRow, SkippedGroup } from './queries.ts';

// The per-group bookkeeping of a WorkerRuntime (JobDefinition.group): how many jobs of each
// group run, the jobs held until their group has room, and the groups the last claim left
// out. Knows nothing of the database; the runtime decides what to do with what it answers.
//
// A group's limit keeps jobs that hold their slots long (deliveries to a slow receiver) from
// taking every slot. A group whose jobs are quick may run more at once (JobGroup.burst): while
// its last job finished within `whileUnderMs` and none running has run that long. It pays for
// itself in statements: the deliveries to one quick receiver at a limit of 10 were recorded about
// five attempts to a statement, with up to 50 in flight about twenty-five (docs/benchmarks.md,
// "Eleventh session"). A receiver that turns slow holds at most `burst.limit` slots until its
// running jobs pass `whileUnderMs`, then no more start until it is back under `limit`. One with
// no quick job finished yet starts at `limit`.

/** The group a job belongs to: `key` is unique across kinds. */
export interface Group extends SkippedGroup {
  key: string;
  limit: number;
  burst: GroupBurst | null;
}

/** A group's running jobs (when each started, oldest first) and whether its last one was quick. */
interface GroupPace {
  starts: number[];
  quick: boolean;
}

/** A job of a group with no free slot and enough jobs waiting is put back for this long, about (WorkerRuntime.hold). */
export const GROUP_FULL_RETRY_MS = 100;

/** Groups with nothing running whose pace is still remembered, at most (then forgotten). */
const IDLE_PACES_REMEMBERED = 1_000;

/** A job claimed ahead of a free slot, and until when (local clock) its lease surely holds. */
export interface Prefetched {
  job: JobRow;
  leaseUntil: number;
  group: Group | null;
}

export class GroupSlots {
  /** Prefetched jobs whose group was at its limit, by group key, oldest first. */
  private readonly held = new Map<string, Prefetched[]>();
  private heldTotal = 0;
  /** Started jobs whose handler has not returned, and the pace of the last, by group key. */
  private readonly paces = new Map<string, GroupPace>();
  /** Groups the last claim left out; `reopened` once one of them has room again (a claim may find more). */
  private skipped = new Set<string>();
  reopened = false;
  private readonly definitions: JobDefinitions;
  /** Held beyond a group's limit: the most one claim may bring (see hold). */
  private readonly claimSize: number;

  constructor(definitions: JobDefinitions, claimSize: number) {
    this.definitions = definitions;
    this.claimSize = claimSize;
  }

  /** Jobs held for their group. */
  get heldCount(): number {
    return this.heldTotal;
  }

  groupOf(job: Pick<JobRow, 'kind' | 'payload'>): Group | null {
    const group = (this.definitions[job.kind] as JobDefinition | undefined)?.group;
    if (group === undefined) return null;
    const value = String((job.payload as Record<string, unknown>)[group.by]);
    return { kind: job.kind, field: group.by, value, key: `${job.kind}\u0000${value}`, limit: group.limit, burst: group.burst ?? null };
  }

  /** How many of `group`'s jobs may run at once now: its burst limit while its jobs are quick. */
  limitOf(group: Group, now = performance.now()): number {
    const pace = this.paces.get(group.key);
    if (group.burst === null || pace === undefined || !pace.quick) return group.limit;
    const oldest = pace.starts[0];
    return oldest === undefined || now - oldest < group.burst.whileUnderMs ? Math.max(group.limit, group.burst.limit) : group.limit;
  }

  /** Whether `group` has as many jobs held as it may run: the next claim leaves it out (skipForClaim). */
  isFull(group: Group | null): boolean {
    return group !== null && (this.held.get(group.key)?.length ?? 0) >= this.limitOf(group);
  }

  /**
   * Whether a job of `kind` with `payload`, just enqueued, waits for its group's room anyway (the
   * group has as many held as it may run): the claim made when the group has room takes it, and
   * a claim now would leave the group out and read past its waiting jobs to find none of
   * another's (4–6 ms with 2,800 deliveries waiting). WorkerRuntime.nudgeFor does not claim then.
   */
  waitsForRoom(kind: JobKind, payload: Record<string, unknown>): boolean {
    return this.isFull(this.groupOf({ kind, payload: payload as JobRow['payload'] }));
  }

  hasRoom(group: Group | null, now = performance.now()): boolean {
    return group === null || (this.paces.get(group.key)?.starts.length ?? 0) < this.limitOf(group, now);
  }

  /** The groups with as many jobs held as they may run, which the next claim leaves out. */
  skipForClaim(): SkippedGroup[] {
    const full: Group[] = [];
    for (const queue of this.held.values()) {
      const group = queue[0]?.group ?? null;
      if (group !== null && this.isFull(group)) full.push(group);
    }
    this.skipped = new Set(full.map((g) => g.key));
    this.reopened = false;
    return full.map(({ kind, field, value }) => ({ kind, field, value }));
  }

  /**
   * Keeps a job of a group at its limit; false when the group holds `limit` plus a claim's worth
   * already (the caller puts it back). A claim is skipped for the group only once `limit` are held
   * (skipForClaim), so the claim made just before may bring up to a claim's worth of the group:
   * those wait here rather than go back to the table, where putting each back and claiming it
   * again cost two statements (the pipeline benchmark, one tenant's webhooks at their limit of 10
   * with claims of up to 70, saw 2 to 11 such round trips per document).
   */
  hold(p: Prefetched): boolean {
    const group = p.group as Group;
    const queue = this.held.get(group.key) ?? [];
    if (queue.length >= this.limitOf(group) + this.claimSize) return false;
    queue.push(p);
    this.held.set(group.key, queue);
    this.heldTotal++;
    return true;
  }

  /** Every held job, in no particular order. */
  allHeld(): Prefetched[] {
    return [...this.held.values()].flat();
  }

  /** Empties the held jobs, returning them. */
  takeHeld(): Prefetched[] {
    const all = this.allHeld();
    this.held.clear();
    this.heldTotal = 0;
    return all;
  }

  /** Forgets a held job (its lease was lost). */
  drop(p: Prefetched): void {
    const queue = p.group === null ? undefined : this.held.get(p.group.key);
    const i = queue?.indexOf(p) ?? -1;
    if (queue === undefined || i < 0) return;
    queue.splice(i, 1);
    this.heldTotal--;
    if (queue.length === 0) this.held.delete((p.group as Group).key);
  }

  /**
   * Takes held jobs, oldest first within each group, while `canStart` allows and their group
   * has room; each is handed to `start`, which counts it with `started` if it runs it.
   */
  release(canStart: () => boolean, start: (p: Prefetched) => void): void {
    for (const [key, queue] of this.held) {
      while (canStart() && queue.length > 0 && this.hasRoom((queue[0] as Prefetched).group)) {
        const p = queue.shift() as Prefetched;
        this.heldTotal--;
        start(p);
      }
      if (queue.length === 0) this.held.delete(key);
    }
  }

  /** A job of `group` started `at` (performance.now()). */
  started(group: Group | null, at = performance.now()): void {
    if (group === null) return;
    const pace = this.paces.get(group.key);
    if (pace === undefined) this.paces.set(group.key, { starts: [at], quick: false });
    else pace.starts.push(at);
  }

  /** A job of `group` that started `startedAt` returned `at`: its slot is free. */
  finished(group: Group | null, startedAt: number, at = performance.now()): void {
    const pace = group === null ? undefined : this.paces.get(group.key);
    if (group === null || pace === undefined) return;
    const i = pace.starts.indexOf(startedAt);
    pace.starts.splice(i >= 0 ? i : 0, 1);
    pace.quick = group.burst !== null && at - startedAt < group.burst.whileUnderMs;
    if (pace.starts.length === 0 && !pace.quick) this.paces.delete(group.key);
    if (this.paces.size > IDLE_PACES_REMEMBERED) {
      for (const [key, p] of this.paces) if (p.starts.length === 0) this.paces.delete(key);
    }
  }

  /** After the freed slot went to a held job: a skipped group with fewer than `limit` held may be claimed again. */
  reopen(group: Group | null): void {
    if (group === null || !this.skipped.has(group.key) || (this.held.get(group.key)?.length ?? 0) >= this.limitOf(group)) return;
    this.skipped.delete(group.key);
    this.reopened = true;
  }
}
