/**
 * A queue per owner, served round-robin: each take() goes to the next owner with something
 * waiting, so an owner with many items waits for its own, and one with a single item waits
 * for at most one item of each other owner.
 */
export class FairQueue<T> {
  private readonly queues = new Map<string, T[]>();
  /** Owners with something waiting, in the order they will be served. */
  private readonly turns: string[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Items `owner` has waiting. */
  sizeOf(owner: string): number {
    return this.queues.get(owner)?.length ?? 0;
  }

  push(owner: string, item: T): void {
    let queue = this.queues.get(owner);
    if (queue === undefined) {
      queue = [];
      this.queues.set(owner, queue);
      this.turns.push(owner);
    }
    queue.push(item);
    this.count++;
  }

  /** The next item in round-robin order, or undefined when nothing waits. */
  take(): T | undefined {
    const owner = this.turns.shift();
    if (owner === undefined) return undefined;
    const queue = this.queues.get(owner) ?? [];
    const item = queue.shift();
    if (queue.length > 0) this.turns.push(owner);
    else this.queues.delete(owner);
    this.count--;
    return item;
  }

  /** Every waiting item, emptying the queue. */
  drain(): T[] {
    const items: T[] = [];
    for (let item = this.take(); item !== undefined; item = this.take()) items.push(item);
    return items;
  }
}
