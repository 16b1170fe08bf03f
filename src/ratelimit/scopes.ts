import type { Config } from '../config.ts';

// The Limits table of the specification: one row per scope, keyed per tenant or per
// client IP. A request counts against its own scope only, never also against `default`.
export const RATE_SCOPES = {
  default: { key: 'tenant', configKey: 'defaultPerMinute' },
  emit: { key: 'tenant', configKey: 'emitPerMinute' },
  sensitive: { key: 'tenant', configKey: 'sensitivePerMinute' },
  publicAuth: { key: 'ip', configKey: 'publicAuthPerMinute' },
  receiver: { key: 'tenant', configKey: 'receiverPerMinute' },
} as const satisfies Record<string, { key: 'tenant' | 'ip'; configKey: keyof Config['rateLimits'] }>;

export type RateScope = keyof typeof RATE_SCOPES;
export const RATE_SCOPE_NAMES = Object.keys(RATE_SCOPES) as RateScope[];
