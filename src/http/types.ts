import type { Environment } from '../environments.ts';
import type { Logger } from '../log.ts';
import type { Principal } from './principal.ts';
import type { IpRateScope, RouteRateScope, TenantRateScope } from '../ratelimit/scopes.ts';
import type { OperationDoc } from './openapi.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * none: public. apiKey: X-API-KEY required. bearer: Authorization: Bearer required.
 * apiKeyOrBearer: either, or both when they name the same tenant.
 */
export type AuthMode = 'none' | 'apiKey' | 'bearer' | 'apiKeyOrBearer';

/**
 * none: the body is ignored. json: a JSON body is required. optionalJson: empty or JSON.
 * raw: the bytes are handed over as they came (XML, multipart), with no Content-Type check.
 */
export type BodyKind = 'none' | 'json' | 'optionalJson' | 'raw';

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface RequestContext {
  readonly requestId: string;
  readonly method: string;
  /** The decoded path without the query string. */
  readonly path: string;
  /** The matched route pattern, e.g. /{env}/documentos-ecf (logged instead of the path). */
  readonly routePath: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: Headers;
  readonly clientIp: string;
  /** The connection's own peer address, whatever X-Forwarded-For says. */
  readonly peerIp: string;
  /** The canonical environment when the route has an {env} segment. */
  readonly env: Environment | null;
  principal: Principal | null;
  body: unknown;
  rawBody: Buffer;
  /** Aborted when the client goes away or the server shuts down. */
  readonly signal: AbortSignal;
  /**
   * Gives back the token this request took from its route's `ipRateScope`: the request has
   * proved who sends it (a valid token), so it counts against its tenant only.
   */
  readonly refundIpLimit: () => void;
  /**
   * Takes a token from a tenant-keyed scope the handler chooses once it knows who sends the
   * request (RATE_LIMITED beyond it), its RateLimit fields joining the answer's.
   */
  readonly takeLimit: (scope: TenantRateScope, key: string) => void;
  readonly log: Logger;
}

export interface Reply {
  status: number;
  /** Serialised as JSON unless `raw` is given. */
  body?: unknown;
  raw?: { data: Buffer | string; contentType: string };
  /**
   * A body written chunk by chunk as `source` yields it (chunked, with backpressure): for
   * exports too large to hold. Pulled only once the status is sent; when the client leaves,
   * the source is returned early so it can release what it holds (a database cursor).
   */
  stream?: { source: AsyncIterable<Buffer | string>; contentType: string };
  headers?: Record<string, string>;
}

export type Handler = (ctx: RequestContext) => Promise<Reply>;

export interface Route {
  method: HttpMethod;
  path: string;
  auth: AuthMode;
  /** Rate-limit scope; authenticated routes default to `default`, public ones to none. */
  rateScope?: RouteRateScope | 'none';
  /**
   * A per-client-IP scope taken before anything else, even before `rateScope`: for public
   * routes keyed on the tenant they name, so one address cannot spend a tenant's budget alone.
   */
  ipRateScope?: IpRateScope;
  /**
   * The bucket of a tenant-keyed scope when the tenant is not the authenticated principal
   * (the receiver group names its tenant in the path); null applies no limit.
   */
  rateKey?: (ctx: RequestContext) => string | null;
  body?: BodyKind;
  /**
   * Further tokens the request takes from its tenant-keyed rate scope once its body is read,
   * beside the one taken before (a batch counts as its documents: n - 1 more).
   */
  extraRateCost?: (body: unknown) => number;
  /** Overrides the configured body size limit for this route. */
  bodyLimit?: number;
  /**
   * Added to HTTP_DEADLINE_MS for this route: the timeout of another service its handler waits
   * on (certificate parsing, a sender's CRLs, a test webhook's attempt).
   */
  extraDeadlineMs?: number;
  handler: Handler;
  doc: OperationDoc;
}

/** The scope a route is limited under: authenticated routes default to `default`, public ones to none. */
export function rateScopeOf(route: Route): RouteRateScope | null {
  if (route.rateScope === 'none') return null;
  return route.rateScope ?? (route.auth === 'none' ? null : 'default');
}

export function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
