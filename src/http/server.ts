import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.ts';
import { DeadlineExceeded } from '../lib/deadline.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { combineRateHeaders, type RateLimits } from '../ratelimit/limiter.ts';
import { RequestAborted } from './body.ts';
import { clientIp, socketIp } from './client-ip.ts';
import { Context } from './context.ts';
import { malformedRequestAnswer, toAppError } from './error-response.ts';
import { createResponseWriter } from './response-writer.ts';
import { createRouteRunner, type RateState, type RequestAuthenticator } from './route-runner.ts';
import { splitPath, type Router } from './router.ts';
import type { RequestContext } from './types.ts';

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
/** How long a connection answered as malformed goes on reading before it is cut (see 'clientError'). */
const MALFORMED_LINGER_MS = 2_000;

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

export function createHttpServer(deps: ServerDeps): HttpServer {
  const { config, log, router, authenticator, rateLimits } = deps;
  let draining = false;
  const inFlight = new WeakMap<Socket, InFlight>();
  /** Connections answered as malformed HTTP, left to linger (see 'clientError'). */
  const answeredMalformed = new WeakSet<Socket>();
  const writer = createResponseWriter(() => draining);
  const { run, settle } = createRouteRunner({ config, authenticator, rateLimits, writer });

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
        if (method === 'OPTIONS') return writer.write(res, requestId, 204, null, rate.headers, { allow: allow.join(', ') }, undefined);
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
      const error = toAppError(err, requestId, log);
      // A body sent after an expectation was refused is not waited for.
      if (refuse === undefined) await settle(req, res);
      else res.setHeader('connection', 'close');
      writer.sendError(res, requestId, error, rate.headers);
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
    // The parser stays failed, so each further chunk the client sends lands here again. A
    // socket destroyed with unread input is reset, and a client still uploading its body
    // then loses the answer to the reset; so the socket lingers, reading and dropping what
    // comes, for at most MALFORMED_LINGER_MS after the answer.
    if (answeredMalformed.has(socket)) return;
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    answeredMalformed.add(socket);
    setTimeout(() => socket.destroy(), MALFORMED_LINGER_MS).unref();
    const pending = inFlight.get(socket);
    const requestId = pending?.requestId ?? randomUUID();
    const { status, text } = malformedRequestAnswer(err.code, requestId);
    socket.end(text);
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
