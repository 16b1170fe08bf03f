import { FairQueue } from './fair-queue.ts';

/**
 * Limits how many async tasks run at once, like a semaphore, but the tasks waiting for a turn
 * are served round-robin by owner (FairQueue): an owner with many tasks waiting delays another
 * owner's by at most one task of each, not by all of its own. Admission is bounded overall
 * (`maxQueue`) and per owner (`maxPerOwner`), so one owner cannot fill the queue either.
 */
export class FairGate {
  private running = 0;
  private readonly waiting = new FairQueue<() => void>();
  private readonly max: number;
  private readonly maxQueue: number;
  private readonly maxPerOwner: number;

  constructor(max: number, maxQueue: number, maxPerOwner: number) {
    this.max = max;
    this.maxQueue = maxQueue;
    this.maxPerOwner = maxPerOwner;
  }

  /** False when `owner` may not wait now: the caller should shed the task instead. */
  canEnter(owner: string): boolean {
    if (this.running < this.max) return true;
    return this.waiting.size < this.maxQueue && this.waiting.sizeOf(owner) < this.maxPerOwner;
  }

  /** Tasks waiting for a turn. */
  get queued(): number {
    return this.waiting.size;
  }

  async run<T>(owner: string, task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(owner, resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.take();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}
