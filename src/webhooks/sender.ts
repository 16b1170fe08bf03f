import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { send, TIMEOUT_CODE } from '../lib/http1/client.ts';
import { guardedLookup, literalHostReason, type Resolver } from '../lib/egress-guard.ts';

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first KiB of the answer, as text. */
  responseBody: string;
}

const KEPT_BODY_BYTES = 1024;
const MAX_READ_BYTES = 1024 * 1024;

// Connections to receivers are kept alive and reused (src/lib/http1/), which matters at
// hundreds of deliveries per second. The guarded lookup runs for every new connection; the
// connections made under one rule (private networks allowed or not, a test's resolver) are
// not lent to another.
interface DialRule { lookup: LookupFunction; pool: string }
const RULES = { public: { lookup: guardedLookup(false), pool: 'webhook public' }, private: { lookup: guardedLookup(true), pool: 'webhook private' } };
/** A resolver other than DNS (tests) dials connections of its own. */
const resolverIds = new WeakMap<Resolver, number>();
let resolversSeen = 0;
function dialRule(allowPrivate: boolean, resolve: Resolver | undefined): DialRule {
  if (resolve === undefined) return allowPrivate ? RULES.private : RULES.public;
  let id = resolverIds.get(resolve);
  if (id === undefined) resolverIds.set(resolve, (id = resolversSeen++));
  return { lookup: guardedLookup(allowPrivate, resolve), pool: `webhook ${allowPrivate ? 'private' : 'public'} resolver ${String(id)}` };
}

function describe(err: Error & { code?: string }, timeoutMs: number): string {
  switch (err.code) {
    case TIMEOUT_CODE: return `no answer within ${timeoutMs} ms`;
    case 'ECONNREFUSED': return 'connection refused';
    case 'ECONNRESET': return 'connection reset by the receiver';
    case 'ENOTFOUND': return 'the host name does not resolve';
    case 'EFORBIDDEN_DESTINATION': return err.message;
    case 'EHTTPPARSE': return `the answer is not valid HTTP/1.1: ${err.message}`;
    default: return err.code === undefined ? err.message : `${err.code}: ${err.message}`;
  }
}

/**
 * POSTs `body` to `url` once. Any 2xx within `timeoutMs` is success; anything else — a
 * redirect (never followed), another status, a connection error, a refused destination,
 * or no complete answer in time — is a failure described in `error`.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean; resolve?: Resolver; signal?: AbortSignal },
): Promise<AttemptResult> {
  const started = performance.now();
  const finish = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(finish({ ok: false, statusCode: null, error: 'the webhook URL is not valid', responseBody: '' }));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve(finish({ ok: false, statusCode: null, error: 'the webhook URL must be http or https', responseBody: '' }));
  }
  const literal = options.allowPrivate ? null : literalHostReason(target.hostname);
  if (literal !== null) {
    return Promise.resolve(finish({ ok: false, statusCode: null, error: `refused destination: ${literal}`, responseBody: '' }));
  }
  if (options.signal?.aborted === true) {
    return Promise.resolve(finish({ ok: false, statusCode: null, error: 'the attempt was cancelled', responseBody: '' }));
  }
  const rule = dialRule(options.allowPrivate, options.resolve);
  return send({
    url: target, pool: rule.pool, lookup: rule.lookup, method: 'POST', headers, body,
    timeoutMs: options.timeoutMs, keepBytes: KEPT_BODY_BYTES, maxBytes: MAX_READ_BYTES,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  }).then((answer) => {
    const status = answer.status;
    const ok = status >= 200 && status < 300;
    const error = ok ? null : status >= 300 && status < 400 ? `redirect ${status} not followed` : `receiver answered ${status}`;
    return finish({ ok, statusCode: status, error, responseBody: answer.body.toString('utf8') });
  }, (err: Error & { code?: string }) => finish({
    ok: false, statusCode: null, responseBody: '',
    error: err.code === 'ABORT_ERR' ? 'the attempt was cancelled' : describe(err, options.timeoutMs),
  }));
}
