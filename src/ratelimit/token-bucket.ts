// A token bucket per key: `capacity` tokens, refilled continuously over `windowMs`, so a
// client may burst up to the per-minute limit and then proceeds at the average rate.
//
// Memory is bounded two ways, both O(1) per request: the Map is kept in least-recently-
// used order (a touched key is re-inserted at the end), so idle keys gather at the front
// and each call drops a couple of them once they have been idle a whole window (a bucket
// idle that long is full again, so forgetting it changes nothing); and past `maxKeys`
// the least recently used bucket is dropped even if not full.

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

const SWEEP_PER_CALL = 2;

export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    readonly capacity: number,
    readonly windowMs: number,
    private readonly maxKeys: number,
  ) {
    this.perMs = capacity / windowMs;
  }

  get size(): number {
    return this.buckets.size;
  }

  take(key: string, now = Date.now()): Decision {
    this.sweep(now);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.capacity, at: now };
      if (this.buckets.size >= this.maxKeys) {
        const oldest = this.buckets.keys().next();
        if (oldest.done !== true) this.buckets.delete(oldest.value);
      }
    } else {
      this.buckets.delete(key);
      bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.perMs);
      bucket.at = now;
    }
    this.buckets.set(key, bucket);

    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const missing = this.capacity - bucket.tokens;
    return {
      allowed,
      limit: this.capacity,
      remaining: Math.floor(bucket.tokens),
      retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)),
      resetSec: Math.ceil(missing / this.perMs / 1000),
    };
  }

  private sweep(now: number): void {
    for (let i = 0; i < SWEEP_PER_CALL; i++) {
      const first = this.buckets.entries().next();
      if (first.done === true) return;
      const [key, bucket] = first.value;
      if (now - bucket.at < this.windowMs) return;
      this.buckets.delete(key);
    }
  }
}
