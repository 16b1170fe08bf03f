import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { ipRateKey } from './client-key.ts';
import { Ipv6Widening } from './ipv6-widening.ts';
import { RATE_SCOPES, RATE_SCOPE_NAMES, type AccountRateScope, type IpRateScope, type RateScope } from './scopes.ts';
import { TokenBucketLimiter, type Decision } from './token-bucket.ts';

const WINDOW_MS = 60_000;

/** A token taken from a bucket, so that it can be given back. */
export interface Taken {
  scope: RateScope;
  key: string;
  headers: Record<string, string>;
}

/** Per-instance limits for every scope of the Limits table (not shared between instances). */
export class RateLimits {
  private readonly limiters: Record<RateScope, TokenBucketLimiter>;
  private readonly widening = new Map<RateScope, Ipv6Widening>();
  private readonly refused = new Map<RateScope, number>();

  constructor(config: Config['rateLimits']) {
    const entries = RATE_SCOPE_NAMES.map((scope) => [
      scope,
      new TokenBucketLimiter(config[RATE_SCOPES[scope].configKey], WINDOW_MS, config.maxKeys),
    ]);
    this.limiters = Object.fromEntries(entries) as Record<RateScope, TokenBucketLimiter>;
    for (const scope of RATE_SCOPE_NAMES) {
      if (RATE_SCOPES[scope].key === 'ip') this.widening.set(scope, new Ipv6Widening(config.ipv6WidenAfter, WINDOW_MS, config.maxKeys));
    }
  }

  /**
   * Takes one token (or `cost`, at most the whole bucket) from the bucket of (scope, key). Returns the headers to send either
   * way; throws RATE_LIMITED (with those headers and Retry-After) when refused.
   */
  consume(scope: RateScope, key: string | number, now?: number, cost = 1): Record<string, string> {
    return this.take(scope, String(key), now, cost).headers;
  }

  /** consume() for a client address: keyed by ipRateKey, or by its /48 once that is widened. */
  consumeIp(scope: IpRateScope, ip: string, now?: number): Taken {
    const widening = this.widening.get(scope);
    const key = widening?.key(ip, now) ?? ipRateKey(ip);
    try {
      return this.take(scope, key, now);
    } catch (err) {
      widening?.refused(ip, key, now);
      throw err;
    }
  }

  /** consume() for a scope keyed on an account, returning what refund() needs. */
  consumeAccount(scope: AccountRateScope, key: string, now?: number): Taken {
    return this.take(scope, key, now);
  }

  /** Gives back a token that consume() or consumeIp() took, for a request that should not count. */
  refund(taken: Pick<Taken, 'scope' | 'key'>): void {
    this.limiters[taken.scope].give(taken.key);
  }

  /** Requests refused in `scope` since start (for /metrics). */
  refusals(scope: RateScope): number {
    return this.refused.get(scope) ?? 0;
  }

  /** The scope's bucket size: its per-minute limit. */
  capacity(scope: RateScope): number {
    return this.limiters[scope].capacity;
  }

  size(scope: RateScope): number {
    return this.limiters[scope].size;
  }

  private take(scope: RateScope, key: string, now?: number, cost = 1): Taken {
    const decision = this.limiters[scope].take(key, now, cost);
    const headers = rateLimitHeaders(scope, decision);
    if (!decision.allowed) {
      this.refused.set(scope, (this.refused.get(scope) ?? 0) + 1);
      headers['retry-after'] = String(decision.retryAfterSec);
      throw new AppError('RATE_LIMITED', `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSec} s`, { headers });
    }
    return { scope, key, headers };
  }
}

/**
 * The RateLimit fields of two policies a request passed, as one list each (the draft lets a
 * response name several policies).
 */
export function combineRateHeaders(a: Record<string, string>, b: Record<string, string>): Record<string, string> {
  // Most requests pass one policy only: nothing to combine.
  if (a['ratelimit'] === undefined) return b;
  const out = { ...a, ...b };
  for (const name of ['ratelimit-policy', 'ratelimit']) {
    const first = a[name];
    const second = b[name];
    if (first !== undefined && second !== undefined) out[name] = `${first}, ${second}`;
  }
  return out;
}

/** The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers). */
function rateLimitHeaders(scope: RateScope, d: Decision): Record<string, string> {
  return {
    'ratelimit-policy': `"${scope}";q=${d.limit};w=${WINDOW_MS / 1000}`,
    ratelimit: `"${scope}";r=${d.remaining};t=${d.allowed ? d.resetSec : d.retryAfterSec}`,
  };
}
