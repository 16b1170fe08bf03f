/**
 * When a batch is loaded: at the end of the turn of the event loop (keys asked for by work that
 * I/O callbacks of one turn started, such as requests read together), or as soon as the
 * promise jobs of the moment have run (keys asked for by work started together in code, such as
 * the writes of a transaction: they go out before the event loop turns to anything else).
 */
export type FlushWhen = 'turn' | 'microtasks';

/**
 * Gathers the keys asked for together and loads them with one call (DataLoader's idea, without
 * its cache): work started together, such as a batch of claimed jobs, then reads its rows with
 * one statement instead of one each. A key the loader does not return resolves to undefined; a
 * failed load rejects every waiter of that batch.
 */
export class BatchLoader<K, V> {
  private pending: { key: K; resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[] = [];
  private readonly load: (keys: K[]) => Promise<Map<K, V>>;
  private readonly maxBatch: number;
  private readonly when: FlushWhen;
  private readonly serial: boolean;
  private running = false;

  /**
   * `serial`: one load at a time. Keys asked for while a load runs wait for it, and go together
   * in the next (group commit): a writer whose callers finish one by one (each job when its own
   * answer arrives) then writes as many per statement as arrive during one, rather than one
   * statement per turn of the event loop, each on a connection of its own.
   */
  constructor(load: (keys: K[]) => Promise<Map<K, V>>, maxBatch = 100, when: FlushWhen = 'turn', serial = false) {
    this.load = load;
    this.maxBatch = maxBatch;
    this.when = when;
    this.serial = serial;
  }

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      // process.nextTick from a promise job runs once the promise jobs queued meanwhile ran too.
      if (this.pending.length === 0) {
        if (this.when === 'turn') setImmediate(() => this.flush());
        else process.nextTick(() => this.flush());
      }
      this.pending.push({ key, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
    });
  }

  private flush(): void {
    if (this.serial && this.running) return; // the running load's end flushes what waits
    const batch = this.pending.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.running = true;
    const keys = [...new Set(batch.map((w) => w.key))];
    this.load(keys).then(
      (found) => {
        for (const w of batch) w.resolve(found.get(w.key));
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    ).finally(() => {
      this.running = false;
      if (this.serial) this.flush();
    });
  }
}

/**
 * One BatchLoader per owner (a transaction, say), made on first use and gone with the owner:
 * what its writes gathered belongs to that owner alone.
 */
export function loaderPerOwner<O extends object, K, V>(): (owner: O, make: () => BatchLoader<K, V>) => BatchLoader<K, V> {
  const loaders = new WeakMap<O, BatchLoader<K, V>>();
  return (owner, make) => {
    let loader = loaders.get(owner);
    if (loader === undefined) loaders.set(owner, (loader = make()));
    return loader;
  };
}
