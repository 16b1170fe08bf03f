import { send, TIMEOUT_CODE, type Http1Answer } from '../../lib/http1/client.ts';
import { TransientAuthorityError } from '../authority.ts';

// One HTTP exchange with DGII: a deadline that also covers reading the answer, the caller's
// cancellation, a cap on the answer's size, and every transport failure turned into
// TransientAuthorityError (the job queue decides when to try again).
//
// The service's own HTTP/1.1 client (src/lib/http1/) rather than the global fetch or node:http:
// a document's upload and status query cost the service 434 and 210 µs of CPU through fetch,
// 135 and 88 µs through node:http (docs/benchmarks.md, "Pipeline"), and less again through it.
// Connections are kept alive; a free one is closed after 4 s, before the usual 5 s a server
// keeps an idle connection, so a request rarely meets a connection the server is closing.

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What the request is for, in error messages ("requesting the seed"). */
  purpose: string;
}

export interface HttpOptions {
  timeoutMs: number;
  signal: AbortSignal;
  maxAnswerBytes: number;
}

// A refused connection never reached the server, so trying again cannot duplicate anything.
// A reset may have come after the server read the request: only requests that change
// nothing are repeated after one (a resent e-CF could be refused as a duplicate eNCF).
const REFUSED = new Set(['ECONNREFUSED']);
const RESET = new Set(['ECONNRESET', 'EPIPE']);

/** A transport failure, with the system error code that tells whether a retry is safe. */
class ConnectionError extends TransientAuthorityError {
  readonly code: string | null;

  constructor(message: string, code: string | null, cause: unknown) {
    super(message, { cause });
    this.code = code;
  }
}

function errorCode(err: unknown): string | null {
  const seen = new Set<unknown>();
  const pending: unknown[] = [err];
  while (pending.length > 0 && seen.size < 20) {
    const e = pending.shift();
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ERR_INVALID_STATE') return code;
    pending.push((e as { cause?: unknown }).cause);
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) pending.push(...errors);
  }
  return null;
}

function parseJson(text: string, contentType: string): unknown {
  const looksJson = /\bjson\b/i.test(contentType) || /^\s*[[{"]/.test(text);
  if (!looksJson) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A transport failure as TransientAuthorityError, saying why (timeout, cancellation, the system error). */
function transportError(err: unknown, req: HttpRequest, options: HttpOptions, timedOut: boolean): TransientAuthorityError {
  if (err instanceof TransientAuthorityError) return err;
  if (options.signal.aborted) return new TransientAuthorityError(`Cancelled while ${req.purpose}`, { cause: err });
  if (timedOut) return new TransientAuthorityError(`DGII did not answer within ${options.timeoutMs} ms while ${req.purpose}`, { cause: err });
  const code = errorCode(err);
  return new ConnectionError(`Could not reach DGII while ${req.purpose}${code === null ? '' : ` (${code})`}`, code, err);
}

async function attempt(req: HttpRequest, options: HttpOptions): Promise<HttpAnswer> {
  if (options.signal.aborted) throw transportError(new Error('aborted before sending'), req, options, false);
  let target: URL;
  try {
    target = new URL(req.url);
  } catch (err) {
    throw new ConnectionError(`Could not reach DGII while ${req.purpose}: the URL is not valid`, null, err);
  }
  let answer: Http1Answer;
  try {
    answer = await send({
      url: target, pool: 'dgii', method: req.method, headers: req.headers, ...(req.body === undefined ? {} : { body: req.body }),
      timeoutMs: options.timeoutMs, signal: options.signal, keepBytes: options.maxAnswerBytes, maxBytes: options.maxAnswerBytes,
    });
  } catch (err) {
    throw transportError(err, req, options, (err as { code?: unknown }).code === TIMEOUT_CODE);
  }
  const status = answer.status;
  // Never followed, as a redirect to elsewhere would carry the token there.
  if (status >= 300 && status < 400) throw new TransientAuthorityError(`DGII answered with a redirect (HTTP ${status}) while ${req.purpose}; it is not followed`);
  if (answer.truncated) throw new TransientAuthorityError(`DGII's answer while ${req.purpose} is larger than ${options.maxAnswerBytes} bytes`);
  const contentType = answer.headers.get('content-type') ?? '';
  const text = answer.body.toString('utf8');
  return { status, contentType, text, json: parseJson(text, contentType) };
}

/** Sends the request, once more at once if the connection was refused (or reset, for a GET). */
export async function exchange(req: HttpRequest, options: HttpOptions): Promise<HttpAnswer> {
  try {
    return await attempt(req, options);
  } catch (err) {
    if (!(err instanceof ConnectionError) || err.code === null) throw err;
    const retryable = REFUSED.has(err.code) || (req.method === 'GET' && RESET.has(err.code));
    if (!retryable) throw err;
    return attempt(req, options);
  }
}
