/**
 * A map whose entries expire after `ttlMs`, holding at most `max` entries. Like the rate
 * limiter, it keeps two generations and drops the older one when the newer one is full,
 * so every call is O(1) however many keys pass through.
 */
export class TtlCache<V> {
  private current = new Map<string, { value: V; expires: number }>();
  private previous = new Map<string, { value: V; expires: number }>();
  private readonly generationSize: number;
  private readonly ttlMs: number;

  constructor(ttlMs: number, max: number) {
    this.ttlMs = ttlMs;
    this.generationSize = Math.max(1, Math.floor(max / 2));
  }

  get(key: string, now = Date.now()): V | undefined {
    const e = this.current.get(key) ?? this.previous.get(key);
    if (e === undefined) return undefined;
    if (e.expires <= now) {
      this.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    this.previous.delete(key);
    if (this.current.size >= this.generationSize && !this.current.has(key)) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, { value, expires: now + this.ttlMs });
  }

  delete(key: string): void {
    this.current.delete(key);
    this.previous.delete(key);
  }
}
