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

  constructor(load: (keys: K[]) => Promise<Map<K, V>>, maxBatch = 100, when: FlushWhen = 'turn') {
    this.load = load;
    this.maxBatch = maxBatch;
    this.when = when;
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
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const keys = [...new Set(batch.map((w) => w.key))];
    this.load(keys).then(
      (found) => {
        for (const w of batch) w.resolve(found.get(w.key));
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    );
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
