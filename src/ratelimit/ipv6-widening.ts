import { TtlCache } from '../lib/ttl-cache.ts';
import { ipBuckets } from './client-key.ts';

// Per-IP limits key an IPv6 client by its /64, yet one customer often holds a /56 or a /48:
// 256 or 65,536 buckets. The bound chosen: once `threshold` distinct /64s of one /48 have
// been refused within a window, or `SEEN_FACTOR` times as many have been seen at all, the
// whole /48 is keyed as one client, until it has gone `WIDENED_WINDOWS` windows without a
// refusal. Counting refusals alone never fired against a client that keeps each /64 just
// under its limit and moves on to the next: that one is caught by the /64s it uses. An
// attacker holding a /48 (or anything smaller) so gets a bounded number of buckets' worth
// before sharing a single one; its neighbours in the same /48 share that bucket meanwhile,
// the price of a bound at all.

const WIDENED_WINDOWS = 10;
/** Distinct /64s of one /48 seen in a window, as a multiple of the refused ones, that widen it. */
export const SEEN_FACTOR = 4;

export class Ipv6Widening {
  /** /48 → the /64s of it refused within the last window. */
  private readonly refusedNarrow: TtlCache<Set<string>>;
  /** /48 → the /64s of it that asked within the last window (at most the limit, then it widens). */
  private readonly seenNarrow: TtlCache<Set<string>>;
  private readonly widened: TtlCache<true>;

  private readonly threshold: number;

  constructor(threshold: number, windowMs: number, maxKeys: number) {
    this.threshold = threshold;
    this.refusedNarrow = new TtlCache(windowMs, maxKeys);
    this.seenNarrow = new TtlCache(windowMs, maxKeys);
    this.widened = new TtlCache(windowMs * WIDENED_WINDOWS, maxKeys);
  }

  /** The bucket of this address: its /48 once widened, otherwise its /64 (or IPv4 address). */
  key(ip: string, now = Date.now()): string {
    const { narrow, wide } = ipBuckets(ip);
    if (wide === null) return narrow;
    if (this.widened.get(wide, now) !== undefined) return wide;
    let seen = this.seenNarrow.get(wide, now);
    if (seen === undefined) {
      seen = new Set();
      this.seenNarrow.set(wide, seen, now);
    }
    seen.add(narrow);
    if (seen.size > this.threshold * SEEN_FACTOR) {
      this.widened.set(wide, true, now);
      this.seenNarrow.delete(wide);
      return wide;
    }
    return narrow;
  }

  /** Records that the bucket `key` of `ip` refused a request. */
  refused(ip: string, key: string, now = Date.now()): void {
    const { narrow, wide } = ipBuckets(ip);
    if (wide === null) return;
    if (key === wide) {
      this.widened.set(wide, true, now); // still misbehaving: stays widened
      return;
    }
    const seen = this.refusedNarrow.get(wide, now) ?? new Set<string>();
    seen.add(narrow);
    if (seen.size >= this.threshold) {
      this.widened.set(wide, true, now);
      this.refusedNarrow.delete(wide);
    } else {
      this.refusedNarrow.set(wide, seen, now);
    }
  }
}
