import { TtlCache } from '../lib/ttl-cache.ts';
import { ipBuckets } from './client-key.ts';

// Per-IP limits key an IPv6 client by its /64, yet one customer often holds a /56 or a /48:
// 256 or 65,536 buckets. The bound chosen: once `threshold` distinct /64s of one /48 have
// been refused within a window, the whole /48 is keyed as one client, until it has gone
// `WIDENED_WINDOWS` windows without a refusal. An attacker holding a /48 (or anything
// smaller) so gets at most `threshold` buckets' worth before sharing a single one; its
// neighbours in the same /48 share that bucket meanwhile, the price of a bound at all.

const WIDENED_WINDOWS = 10;

export class Ipv6Widening {
  /** /48 → the /64s of it refused within the last window. */
  private readonly refusedNarrow: TtlCache<Set<string>>;
  private readonly widened: TtlCache<true>;

  private readonly threshold: number;

  constructor(threshold: number, windowMs: number, maxKeys: number) {
    this.threshold = threshold;
    this.refusedNarrow = new TtlCache(windowMs, maxKeys);
    this.widened = new TtlCache(windowMs * WIDENED_WINDOWS, maxKeys);
  }

  /** The bucket of this address: its /48 once widened, otherwise its /64 (or IPv4 address). */
  key(ip: string, now = Date.now()): string {
    const { narrow, wide } = ipBuckets(ip);
    return wide !== null && this.widened.get(wide, now) !== undefined ? wide : narrow;
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
