import { randomInt } from 'node:crypto';

/**
 * How long recent password checks took, to answer a sign-in that skips scrypt after as long
 * as one that ran it. A ring of the last `size` durations; a draw picks one at random, so the
 * delays follow what the machine does now (its load included), not a figure fixed at start.
 */
export class HashTimings {
  private readonly samples: number[] = [];
  private next = 0;
  private readonly first: Promise<void>;
  private markFirst: () => void = () => {};

  private readonly size: number;

  constructor(size = 64) {
    this.size = size;
    this.first = new Promise((resolve) => {
      this.markFirst = resolve;
    });
  }

  record(ms: number): void {
    if (this.samples.length < this.size) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.size;
    this.markFirst();
  }

  /** A recorded duration; waits for the first one when none has been recorded yet. */
  async draw(): Promise<number> {
    if (this.samples.length === 0) await this.first;
    return this.samples[randomInt(this.samples.length)] ?? 0;
  }
}
