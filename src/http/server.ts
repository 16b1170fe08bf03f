import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.ts';
import { assertInScope, type Principal } from './principal.ts';
import { isDatabaseUnavailable, isUnstorableText } from '../db/errors.ts';
import { DeadlineExceeded, within } from '../lib/deadline.ts';
import { AppError, ERROR_CODES, errorEnvelope, type ErrorCode } from '../errors.ts';
import type { Logger } from '../log.ts';
import { combineRateHeaders, type RateLimits, type Taken } from '../ratelimit/limiter.ts';
import { isIpScope, RATE_SCOPES, type RouteRateScope } from '../ratelimit/scopes.ts';
import { decodeBody, discardBody, readBody, RequestAborted } from './body.ts';
import { clientIp, socketIp } from './client-ip.ts';
import { Context } from './context.ts';
import { set, setAll } from './header-list.ts';
import { splitPath, type Router } from './router.ts';
import { rateScopeOf, type AuthMode, type Headers, type Reply, type RequestContext, type Route } from './types.ts';

export interface RequestAuthenticator {
  /** Synchronous when the credentials are cached; throws or rejects with the request's 401/403. */
  authenticate(mode: Exclude<AuthMode, 'none'>, headers: Headers): Principal | Promise<Principal>;
}

export interface CompletedRequest {
  method: string;
  route: string;
  status: number;
  /** null for a malformed request answered before it was timed. */
  ms: number | null;
}

export interface ServerDeps {
  config: Config;
  log: Logger;
  router: Router;
  authenticator: RequestAuthenticator;
  rateLimits: RateLimits;
  onCompleted?: (r: CompletedRequest) => void;
}

export interface HttpServer {
  server: Server;
  listen(): Promise<{ port: number; url: string }>;
  /** Stops accepting, lets in-flight requests finish within the grace period, then cuts. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** One access-log line's fields. */
type AccessEntry = {
  requestId: string;
  method: string;
  route: string;
  status: number;
  ms: number | null;
  tenant: number | null;
  ip: string;
  aborted?: true;
};

/** The request a connection is busy with, so a raw reply on its socket is logged as its answer. */
interface InFlight {
  requestId: string;
  rawStatus: number | null;
}

/** The RateLimit fields a request has earned so far, and the per-IP token it may give back. */
interface RateState {
  headers: Record<string, string>;
  ipTaken: Taken | null;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function errorBody(err: AppError): string {
  return JSON.stringify(errorEnvelope(err));
}

export function createHttpServer(deps: ServerDeps): HttpServer {
  const { config, log, router, authenticator, rateLimits } = deps;
  let draining = false;
  const inFlight = new WeakMap<Socket, InFlight>();

  function toAppError(err: unknown, requestId: string): AppError {
    if (err instanceof AppError) return err;
    if (isDatabaseUnavailable(err)) {
      log.warn('database unavailable', { requestId, err });
      return new AppError('SERVICE_UNAVAILABLE', undefined, { headers: { 'retry-after': '5' } });
    }
    if (err instanceof DeadlineExceeded) {
      log.warn('request deadline passed', { requestId, err });
      return new AppError('SERVICE_UNAVAILABLE', 'El servicio no pudo completar la solicitud a tiempo (la base de datos no respondió); reintente en unos segundos. Una solicitud con Idempotency-Key puede repetirse con la misma clave.', { headers: { 'retry-after': '5' } });
    }
    if (isUnstorableText(err)) {
      // An error line all the same: some input path lacks the check that should refuse this.
      log.error('text the database cannot store reached a query; the input path should refuse it', { requestId, err });
      return new AppError('VALIDATION_ERROR', 'The request contains characters that cannot be stored (such as U+0000)', { status: 400 });
    }
    log.error('unhandled error', { requestId, err });
    return new AppError('INTERNAL');
  }

  /**
   * Writes a whole answer with one writeHead: the service's fixed headers, the request id,
   * then `extra` (rate-limit fields) and `own` (the reply's or error's), later ones winning.
   */
  function write(res: ServerResponse, requestId: string, status: number, contentType: string | null, extra: Record<string, string>, own: Record<string, string> | undefined, body: Buffer | string | undefined): void {
    if (res.headersSent || res.destroyed) return;
    const list = fixedHeaders(requestId, contentType, extra, own);
    if (body !== undefined) list.push('content-length', Buffer.byteLength(body));
    res.writeHead(status, list);
    res.end(body);
  }

  /** The header list every answer starts with, as writeHead's flat [name, value, …] form (no object to build and walk). */
  function fixedHeaders(requestId: string, contentType: string | null, extra: Record<string, string>, own: Record<string, string> | undefined): (string | number)[] {
    const list: (string | number)[] = contentType === null
      ? ['cache-control', 'no-store', 'x-content-type-options', 'nosniff', 'x-request-id', requestId]
      : ['cache-control', 'no-store', 'x-content-type-options', 'nosniff', 'x-request-id', requestId, 'content-type', contentType];
    setAll(list, extra);
    if (own !== undefined) setAll(list, own);
    if (draining) set(list, 'connection', 'close');
    return list;
  }

  /** Streams a body; a client that leaves ends it quietly, a failing source cuts the answer. */
  async function sendStream(res: ServerResponse, requestId: string, reply: Reply & { stream: NonNullable<Reply['stream']> }, extra: Record<string, string>): Promise<void> {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(reply.status, fixedHeaders(requestId, reply.stream.contentType, extra, reply.headers));
    try {
      await pipeline(Readable.from(reply.stream.source, { objectMode: false }), res);
    } catch (err) {
      if (res.writableFinished || (res.destroyed && !res.writableEnded && (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE')) return;
      throw err;
    }
  }

  function sendReply(res: ServerResponse, requestId: string, reply: Reply, extra: Record<string, string>): void {
    if (reply.raw !== undefined) {
      write(res, requestId, reply.status, reply.raw.contentType, extra, reply.headers, reply.raw.data);
    } else if (reply.body !== undefined && reply.status !== 204) {
      write(res, requestId, reply.status, JSON_TYPE, extra, reply.headers, JSON.stringify(reply.body));
    } else {
      write(res, requestId, reply.status, null, extra, reply.headers, undefined);
    }
  }

  function sendError(res: ServerResponse, requestId: string, err: AppError, extra: Record<string, string>): void {
    write(res, requestId, err.status, JSON_TYPE, extra, err.headers, errorBody(err));
  }

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
    if (reply.stream !== undefined) await sendStream(res, ctx.requestId, { ...reply, stream: reply.stream }, rate.headers);
    else sendReply(res, ctx.requestId, reply, rate.headers);
  }

  /** Reads what the client still sends before answering, or has the answer close the connection. */
  // Bounded like nginx's lingering close: at most 8 body limits' worth and 5 s.
  async function settle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.complete) return;
    const drained = await discardBody(req, config.http.bodyLimitBytes * 8, Math.min(config.http.requestTimeoutMs, 5_000));
    if (!drained) res.setHeader('connection', 'close');
  }

  function accessLog(entry: AccessEntry): void {
    log.info('request', entry);
    deps.onCompleted?.(entry);
  }

  /**
   * Runs one request. `refuse` answers it with that error without routing (an expectation
   * the server cannot meet). Every request gets one access-log line: when its answer is
   * sent, or when the connection closes first (status 499, `aborted`), or with the status
   * of a raw reply the server wrote on the socket meanwhile (a request timeout).
   */
  async function handle(req: IncomingMessage, res: ServerResponse, refuse?: AppError): Promise<void> {
    const started = performance.now();
    const presented = req.headers['x-request-id'];
    const requestId = typeof presented === 'string' && REQUEST_ID.test(presented) ? presented : randomUUID();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    let routePath = '(unmatched)';
    let ctx: RequestContext | null = null;
    const ip = clientIp(req, config.trustProxy);
    const pending: InFlight = { requestId, rawStatus: null };
    inFlight.set(req.socket, pending);
    const logLine = (status: number, aborted: boolean) => {
      if (inFlight.get(req.socket) === pending) inFlight.delete(req.socket);
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const entry: AccessEntry = { requestId, method, route: routePath, status, ms, tenant: ctx?.principal?.tenantId ?? null, ip };
      if (aborted) entry.aborted = true;
      accessLog(entry);
    };
    // Only a client that leaves before the answer is complete aborts the work; aborting after
    // every response would cost an error object per request. The signal itself is made only
    // for a handler that asks for it: most never do, and each one costs an allocation.
    let controller: AbortController | null = null;
    let clientGone = false;
    /** The server cut an answer it had begun: logged as the 500 it is, not as a client leaving. */
    let cutByServer = false;
    const signal = (): AbortSignal => {
      controller ??= new AbortController();
      if (clientGone) controller.abort();
      return controller.signal;
    };
    const stopWork = (): void => controller?.abort();
    // One listener for both ends: a response emits 'close' after it finished too (a tick later),
    // and one listener per request is cheaper than two.
    res.on('close', () => {
      if (res.writableFinished) return logLine(res.statusCode, false);
      clientGone = true;
      controller?.abort();
      if (cutByServer) logLine(500, false);
      else logLine(pending.rawStatus ?? 499, pending.rawStatus === null);
    });
    const rate: RateState = { headers: {}, ipTaken: null };
    try {
      if (refuse !== undefined) throw refuse;
      const parts = splitPath(path);
      const match = parts === null ? { kind: 'not-found' as const } : router.match(method, parts);
      if (match.kind === 'not-found') throw new AppError('NOT_FOUND', `No endpoint at ${method} ${path.slice(0, 200)}`);
      if (match.kind === 'method-not-allowed') {
        const allow = match.allow.includes('GET') ? [...match.allow, 'HEAD'] : match.allow;
        if (method === 'OPTIONS') return write(res, requestId, 204, null, rate.headers, { allow: allow.join(', ') }, undefined);
        throw new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allow.join(', ')}`, { headers: { allow: allow.join(', ') } });
      }
      routePath = match.route.path;
      ctx = new Context(
        { requestId, method, path, routePath, params: match.params, headers: req.headers, clientIp: ip, peerIp: socketIp(req.socket), env: match.env, log },
        q >= 0 ? url.slice(q + 1) : '',
        {
          signal,
          takeLimit: (scope, key) => {
            rate.headers = combineRateHeaders(rate.headers, rateLimits.consume(scope, key));
          },
          refundIpLimit: () => {
            if (rate.ipTaken !== null) rateLimits.refund(rate.ipTaken);
            rate.ipTaken = null;
          },
        },
      );
      await run(match.route, ctx, req, res, rate);
    } catch (err) {
      // The client left mid-body: nobody is there to answer, and its error is no server fault.
      if (err instanceof RequestAborted) return;
      // Work past its deadline is told to stop where it listens (it cannot be cancelled here).
      if (err instanceof DeadlineExceeded) stopWork();
      if (res.headersSent) {
        log.error('error after the response started', { requestId, err });
        cutByServer = true;
        res.destroy();
        return;
      }
      const error = toAppError(err, requestId);
      // A body sent after an expectation was refused is not waited for.
      if (refuse === undefined) await settle(req, res);
      else res.setHeader('connection', 'close');
      sendError(res, requestId, error, rate.headers);
    }
  }

  // Node enforces headersTimeout and requestTimeout only when it sweeps its connections,
  // every 30 s by default: a slow client would hold its socket that much past the timeout.
  const connectionsCheckingInterval = Math.max(100, Math.min(1_000, Math.floor(config.http.headersTimeoutMs / 4)));
  const server = createServer({ maxHeaderSize: config.http.maxHeaderSize, connectionsCheckingInterval }, (req, res) => {
    void handle(req, res);
  });
  server.headersTimeout = config.http.headersTimeoutMs;
  server.requestTimeout = config.http.requestTimeoutMs;
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;

  // Without a listener Node answers an unknown Expect with a bare 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res, new AppError('EXPECTATION_FAILED', 'Only "Expect: 100-continue" is supported'));
  });

  // Malformed HTTP never reaches the router; answer it in the same envelope and close. A
  // request already being handled (its body too slow) keeps its id and logs the reply itself.
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const code: ErrorCode = err.code === 'HPE_HEADER_OVERFLOW' ? 'HEADERS_TOO_LARGE' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'REQUEST_TIMEOUT' : 'INVALID_REQUEST';
    const status = ERROR_CODES[code].status;
    const body = errorBody(new AppError(code, code === 'INVALID_REQUEST' ? 'The HTTP request is malformed' : undefined));
    const pending = inFlight.get(socket);
    const requestId = pending?.requestId ?? randomUUID();
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`);
    if (pending !== undefined) pending.rawStatus = status;
    else accessLog({ requestId, method: '-', route: '(malformed)', status, ms: null, tenant: null, ip: socketIp(socket) });
  });

  return {
    server,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          const address = server.address();
          const port = typeof address === 'object' && address !== null ? address.port : config.port;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          resolve({ port, url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}` });
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        draining = true;
        const cut = setTimeout(() => server.closeAllConnections(), config.http.shutdownGraceMs);
        cut.unref();
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
