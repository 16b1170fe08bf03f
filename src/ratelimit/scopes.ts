import type { Config } from '../config.ts';

// The Limits table of the specification: one row per scope, keyed per tenant, per client IP
// or per account. A request counts against its own scope only, never also against `default`;
// a public route that names a tenant may add a per-IP scope taken first (Route.ipRateScope).
// `account` scopes are taken by the feature that knows the account (sign-in reads the email
// from the body), never by the server.
export const RATE_SCOPES = {
  default: { key: 'tenant', configKey: 'defaultPerMinute' },
  emit: { key: 'tenant', configKey: 'emitPerMinute' },
  sensitive: { key: 'tenant', configKey: 'sensitivePerMinute' },
  publicAuth: { key: 'ip', configKey: 'publicAuthPerMinute' },
  receiver: { key: 'tenant', configKey: 'receiverPerMinute' },
  receiverAnonymous: { key: 'tenant', configKey: 'receiverAnonymousPerMinute' },
  receiverIp: { key: 'ip', configKey: 'receiverPerIpPerMinute' },
  signInAccount: { key: 'account', configKey: 'signInPerAccountPerMinute' },
} as const satisfies Record<string, { key: 'tenant' | 'ip' | 'account'; configKey: keyof Config['rateLimits'] }>;

export type RateScope = keyof typeof RATE_SCOPES;
export const RATE_SCOPE_NAMES = Object.keys(RATE_SCOPES) as RateScope[];

type ScopeKeyed<K extends string> = { [S in RateScope]: (typeof RATE_SCOPES)[S]['key'] extends K ? S : never }[RateScope];
/** Scopes a route may name: the server takes them, keyed on the tenant or the client IP. */
export type RouteRateScope = ScopeKeyed<'tenant' | 'ip'>;
export type IpRateScope = ScopeKeyed<'ip'>;
export type TenantRateScope = ScopeKeyed<'tenant'>;
export type AccountRateScope = ScopeKeyed<'account'>;

export function isIpScope(scope: RateScope): scope is IpRateScope {
  return RATE_SCOPES[scope].key === 'ip';
}
