import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { RATE_SCOPES, RATE_SCOPE_NAMES, type RateScope } from './scopes.ts';
import { TokenBucketLimiter, type Decision } from './token-bucket.ts';

const WINDOW_MS = 60_000;

/** Per-instance limits for every scope of the Limits table (not shared between instances). */
export class RateLimits {
  private readonly limiters: Record<RateScope, TokenBucketLimiter>;
  private readonly refused = new Map<RateScope, number>();

  constructor(config: Config['rateLimits']) {
    const entries = RATE_SCOPE_NAMES.map((scope) => [
      scope,
      new TokenBucketLimiter(config[RATE_SCOPES[scope].configKey], WINDOW_MS, config.maxKeys),
    ]);
    this.limiters = Object.fromEntries(entries) as Record<RateScope, TokenBucketLimiter>;
  }

  /**
   * Takes one token from the bucket of (scope, key). Returns the headers to send either
   * way; throws RATE_LIMITED (with those headers and Retry-After) when refused.
   */
  consume(scope: RateScope, key: string | number, now?: number): Record<string, string> {
    const decision = this.limiters[scope].take(String(key), now);
    const headers = rateLimitHeaders(scope, decision);
    if (!decision.allowed) {
      this.refused.set(scope, (this.refused.get(scope) ?? 0) + 1);
      headers['retry-after'] = String(decision.retryAfterSec);
      throw new AppError('RATE_LIMITED', `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSec} s`, { headers });
    }
    return headers;
  }

  /** Requests refused in `scope` since start (for /metrics). */
  refusals(scope: RateScope): number {
    return this.refused.get(scope) ?? 0;
  }

  size(scope: RateScope): number {
    return this.limiters[scope].size;
  }
}

/** The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers). */
function rateLimitHeaders(scope: RateScope, d: Decision): Record<string, string> {
  return {
    'ratelimit-policy': `"${scope}";q=${d.limit};w=${WINDOW_MS / 1000}`,
    ratelimit: `"${scope}";r=${d.remaining};t=${d.allowed ? d.resetSec : d.retryAfterSec}`,
  };
}
