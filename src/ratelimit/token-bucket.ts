// A token bucket per key: `capacity` tokens, refilled continuously over `windowMs`, so a
// client may burst up to the per-minute limit and then proceeds at the average rate.
//
// Memory is bounded with two generations of buckets, at O(1) per call: a key is looked up
// in the current map, then in the previous one (and moved to the current one when found
// there). The current map becomes the previous one, and the old previous one is dropped,
// when it reaches half of `maxKeys` or a whole window has passed. A bucket dropped by the
// time rule was idle for a whole window, so it was full again and forgetting it changes
// nothing; under heavy key churn the size rule drops the least recently seen half, as a
// cap must. Nothing is ever iterated, so the cost does not grow with the number of keys.

interface Bucket {
  tokens: number;
  at: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a refused request may be retried (≥ 1), 0 when allowed. */
  retryAfterSec: number;
  /** Seconds until the bucket is full again. */
  resetSec: number;
}

export class TokenBucketLimiter {
  private current = new Map<string, Bucket>();
  private previous = new Map<string, Bucket>();
  private rotatedAt: number | null = null;
  private readonly perMs: number;
  private readonly generationSize: number;
  readonly capacity: number;
  readonly windowMs: number;

  constructor(capacity: number, windowMs: number, maxKeys: number) {
    this.capacity = capacity;
    this.windowMs = windowMs;
    this.perMs = capacity / windowMs;
    this.generationSize = Math.max(1, Math.floor(maxKeys / 2));
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  /** Takes `cost` tokens at once (all or none), at most the whole bucket: a bigger cost could never pass. */
  take(key: string, now = Date.now(), cost = 1): Decision {
    const need = Math.min(Math.max(1, cost), this.capacity);
    this.rotate(now);
    let bucket = this.current.get(key);
    if (bucket === undefined) {
      bucket = this.previous.get(key);
      if (bucket !== undefined) this.previous.delete(key);
      else bucket = { tokens: this.capacity, at: now };
      this.current.set(key, bucket);
    }
    bucket.tokens = Math.min(this.capacity, bucket.tokens + Math.max(0, now - bucket.at) * this.perMs);
    bucket.at = now;

    const allowed = bucket.tokens >= need;
    if (allowed) bucket.tokens -= need;
    const missing = this.capacity - bucket.tokens;
    return {
      allowed,
      limit: this.capacity,
      remaining: Math.floor(bucket.tokens),
      retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((need - bucket.tokens) / this.perMs / 1000)),
      resetSec: Math.ceil(missing / this.perMs / 1000),
    };
  }

  /**
   * Gives one token back to the bucket of `key` (a request that turned out not to count).
   * A bucket no longer held was idle long enough to be full again, so nothing is lost.
   */
  give(key: string): void {
    const bucket = this.current.get(key) ?? this.previous.get(key);
    if (bucket !== undefined) bucket.tokens = Math.min(this.capacity, bucket.tokens + 1);
  }

  private rotate(now: number): void {
    if (this.rotatedAt === null) this.rotatedAt = now;
    if (this.current.size < this.generationSize && now - this.rotatedAt < this.windowMs) return;
    this.previous = this.current;
    this.current = new Map();
    this.rotatedAt = now;
  }
}
