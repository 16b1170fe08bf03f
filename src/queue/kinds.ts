// Every kind of background job, with its retry policy: the single table the runtime
// and the enqueueing code agree on.
export const JOB_KINDS = {
  'document.submit': { maxAttempts: 8, backoffBaseMs: 2_000, backoffMaxMs: 300_000 },
  'document.poll': { maxAttempts: 20, backoffBaseMs: 2_000, backoffMaxMs: 300_000 },
  'webhook.deliver': { maxAttempts: 50, backoffBaseMs: 1_000, backoffMaxMs: 60_000 },
  'maintenance.purge': { maxAttempts: 1_000_000, backoffBaseMs: 60_000, backoffMaxMs: 3_600_000 },
  'maintenance.repair': { maxAttempts: 1_000_000, backoffBaseMs: 5_000, backoffMaxMs: 300_000 },
  // Does nothing: used by the queue's tests and benchmark.
  noop: { maxAttempts: 3, backoffBaseMs: 10, backoffMaxMs: 100 },
} as const satisfies Record<string, { maxAttempts: number; backoffBaseMs: number; backoffMaxMs: number }>;

export type JobKind = keyof typeof JOB_KINDS;
export interface RetryPolicy {
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}
export const JOB_KIND_NAMES = Object.keys(JOB_KINDS) as JobKind[];

/** Exponential backoff with jitter over [c/2, c] where c = min(base·2^(n-1), max). */
export function backoffMs(policy: RetryPolicy, attempt: number, random = Math.random): number {
  const { backoffBaseMs, backoffMaxMs } = policy;
  const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
