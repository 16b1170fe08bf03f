/**
 * Gathers the keys asked for during one turn of the event loop and loads them with one call
 * (DataLoader's idea, without its cache): work started together, such as a batch of claimed
 * jobs, then reads its rows with one statement instead of one each. A key the loader does
 * not return resolves to undefined; a failed load rejects every waiter of that batch.
 */
export class BatchLoader<K, V> {
  private pending: { key: K; resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[] = [];
  private readonly load: (keys: K[]) => Promise<Map<K, V>>;
  private readonly maxBatch: number;

  constructor(load: (keys: K[]) => Promise<Map<K, V>>, maxBatch = 100) {
    this.load = load;
    this.maxBatch = maxBatch;
  }

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
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
