import { performance } from 'node:perf_hooks';

/** Due times are rounded up to this: jobs due together make one entry. */
const GRAIN_MS = 10;
/**
 * A job due further ahead is left to polling: a poll interval late matters little then, and the
 * retries of a long outage (a webhook receiver down for hours) do not fill the entries.
 */
const MAX_AHEAD_MS = 60_000;
/** Added to a due time, as the database's clock decides when a job is due. */
const MARGIN_MS = 5;
/** Past this many due times kept, a job is found by polling, as it would be without them. */
const MAX_DUE_TIMES = 1024;
/** A timer may fire this much early by performance.now() (libuv counts whole milliseconds). */
const EARLY_MS = 2;

/**
 * How a WorkerRuntime waits between claims: for its poll interval, less when nudged (a job
 * enqueued now), or until a job this process scheduled for later falls due. Without the due
 * times, a status query DGII was to answer in two seconds was taken up to a poll interval
 * late, and a poll interval short enough to hide that made most claims find nothing
 * (docs/architecture.md, "Claims at a job's due time"). Times are this process's monotonic
 * clock (performance.now()).
 */
export class Sleeper {
  private wake: (() => void) | null = null;
  /** A nudge that arrived while no one was sleeping (mid-claim): the next sleep is skipped. */
  private nudged = false;
  /** The current sleep's end and timer: a job due sooner brings the timer forward. */
  private end = Infinity;
  private timer: NodeJS.Timeout | undefined;
  private readonly dueTimes = new Set<number>();

  /** Ends the current sleep now, or skips the next one. */
  nudge(): void {
    if (this.wake !== null) this.wake();
    else this.nudged = true;
  }

  /** A job was scheduled `delayMs` from now: the sleep under way or the next ends when it is due. */
  dueIn(delayMs: number): void {
    if (delayMs <= 0) return this.nudge();
    if (delayMs > MAX_AHEAD_MS || this.dueTimes.size >= MAX_DUE_TIMES) return;
    this.dueTimes.add(Math.ceil((performance.now() + delayMs + MARGIN_MS) / GRAIN_MS) * GRAIN_MS);
    this.arm();
  }

  /** Awake: drops the due times up to now, which this turn's claim (or, with no room, the next) finds. */
  awake(): void {
    const now = performance.now() + EARLY_MS;
    for (const t of this.dueTimes) if (t <= now) this.dueTimes.delete(t);
  }

  /**
   * A claim starts: the nudges so far are its to answer (the jobs they announced are committed,
   * the room they announced is counted). Kept, such a nudge skipped the sleep after the claim,
   * and the next claim found nothing: in the pipeline benchmark, one of the deliveries' claims in
   * four.
   */
  claimStarts(): void {
    this.nudged = false;
  }

  /** Due times kept. */
  get pending(): number {
    return this.dueTimes.size;
  }

  sleep(ms: number): Promise<void> {
    if (this.nudged) {
      this.nudged = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(this.timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      this.wake = done;
      this.end = performance.now() + ms;
      this.arm();
    });
  }

  /** Sets the current sleep's timer for its end or the next due time, whichever comes first. */
  private arm(): void {
    if (this.wake === null) return;
    let next = this.end;
    for (const t of this.dueTimes) if (t < next) next = t;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.wake, Math.max(0, next - performance.now()));
  }
}
