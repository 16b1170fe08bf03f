/** Limits how many async tasks run at once, with a bounded wait queue. */
export class Semaphore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly max: number;
  private readonly maxQueue: number;

  constructor(max: number, maxQueue: number) {
    this.max = max;
    this.maxQueue = maxQueue;
  }

  /** False when the queue is full: the caller should shed load instead of waiting. */
  canEnter(): boolean {
    return this.running < this.max || this.waiting.length < this.maxQueue;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}
