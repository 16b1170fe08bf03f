import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.ts';
import { within } from '../lib/deadline.ts';
import { combineRateHeaders, type RateLimits, type Taken } from '../ratelimit/limiter.ts';
import { isIpScope, RATE_SCOPES, type RouteRateScope } from '../ratelimit/scopes.ts';
import { decodeBody, discardBody, readBody } from './body.ts';
import { assertInScope, type Principal } from './principal.ts';
import type { ResponseWriter } from './response-writer.ts';
import { rateScopeOf, type AuthMode, type Headers, type RequestContext, type Route } from './types.ts';

export interface RequestAuthenticator {
  /** Synchronous when the credentials are cached; throws or rejects with the request's 401/403. */
  authenticate(mode: Exclude<AuthMode, 'none'>, headers: Headers): Principal | Promise<Principal>;
}

/** The RateLimit fields a request has earned so far, and the per-IP token it may give back. */
export interface RateState {
  headers: Record<string, string>;
  ipTaken: Taken | null;
}

export interface RouteRunnerDeps {
  config: Config;
  authenticator: RequestAuthenticator;
  rateLimits: RateLimits;
  writer: ResponseWriter;
}

export interface RouteRunner {
  /**
   * Runs a matched route: its rate limits, authentication, body, and handler, each within the
   * request's deadline, and writes the handler's reply. Throws what the request fails with.
   */
  run(route: Route, ctx: RequestContext, req: IncomingMessage, res: ServerResponse, rate: RateState): Promise<void>;
  /** Reads what the client still sends before answering, or has the answer close the connection. */
  settle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export function createRouteRunner(deps: RouteRunnerDeps): RouteRunner {
  const { config, authenticator, rateLimits, writer } = deps;

  function limit(scope: RouteRateScope, route: Route, ctx: RequestContext, rate: RateState, cost = 1): void {
    if (isIpScope(scope)) {
      rate.headers = combineRateHeaders(rate.headers, rateLimits.consumeIp(scope, ctx.clientIp).headers);
      return;
    }
    const key = route.rateKey !== undefined ? route.rateKey(ctx) : (ctx.principal?.tenantId ?? null);
    if (key !== null) rate.headers = combineRateHeaders(rate.headers, rateLimits.consume(scope, key, undefined, cost));
  }

  async function run(route: Route, ctx: RequestContext, req: IncomingMessage, res: ServerResponse, rate: RateState): Promise<void> {
    if (route.ipRateScope !== undefined) {
      rate.ipTaken = rateLimits.consumeIp(route.ipRateScope, ctx.clientIp);
      rate.headers = rate.ipTaken.headers;
    }
    const scope = rateScopeOf(route);
    if (scope !== null && isIpScope(scope)) limit(scope, route, ctx, rate);
    // A database that stops answering (a partition without a reset) would hold the request
    // until TCP gives up: authentication and the handler each get the route's deadline.
    const deadlineMs = config.http.deadlineMs + (route.extraDeadlineMs ?? 0);
    if (route.auth !== 'none') {
      const principal = authenticator.authenticate(route.auth, ctx.headers);
      ctx.principal = principal instanceof Promise ? await within(principal, deadlineMs) : principal;
      assertInScope(ctx.principal, route.method, ctx.env);
    }
    if (scope !== null && RATE_SCOPES[scope].key === 'tenant') limit(scope, route, ctx, rate);
    const bodyKind = route.body ?? 'none';
    if (bodyKind !== 'none') {
      ctx.rawBody = await readBody(req, route.bodyLimit ?? config.http.bodyLimitBytes);
      ctx.body = decodeBody(bodyKind, ctx.rawBody, ctx.headers);
    }
    // At most the rest of the bucket: a request costing more than the whole could never pass.
    const extra = Math.min(route.extraRateCost?.(ctx.body) ?? 0, scope === null ? 0 : rateLimits.capacity(scope) - 1);
    if (extra > 0 && scope !== null && RATE_SCOPES[scope].key === 'tenant') {
      const after: RateState = { ...rate, headers: {} };
      limit(scope, route, ctx, after, extra);
      // The second take's fields replace the first's: they are the bucket's state now.
      rate.headers = { ...rate.headers, ...after.headers };
    }
    const reply = await within(route.handler(ctx), deadlineMs);
    if (!req.complete) await settle(req, res);
    if (reply.stream !== undefined) await writer.sendStream(res, ctx.requestId, { ...reply, stream: reply.stream }, rate.headers);
    else writer.sendReply(res, ctx.requestId, reply, rate.headers);
  }

  // Bounded like nginx's lingering close: at most 8 body limits' worth and 5 s.
  async function settle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.complete) return;
    const drained = await discardBody(req, config.http.bodyLimitBytes * 8, Math.min(config.http.requestTimeoutMs, 5_000));
    if (!drained) res.setHeader('connection', 'close');
  }

  return { run, settle };
}
