import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { TransientAuthorityError } from '../authority.ts';

// One HTTP exchange with DGII: a deadline that also covers reading the answer, the caller's
// cancellation, a cap on the answer's size, and every transport failure turned into
// TransientAuthorityError (the job queue decides when to try again).
//
// node:http rather than the global fetch: a document's upload and status query cost the
// service 434 and 210 µs of CPU through fetch against 135 and 88 µs through node:http
// (docs/benchmarks.md, "Pipeline"), and fetch's streams add nothing this needs. Connections
// are kept alive; a free one is closed after 4 s, before the usual 5 s a server keeps an idle
// connection, so a request rarely meets a connection the server is closing.

const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 4_000 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 4_000 }),
};

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

function attempt(req: HttpRequest, options: HttpOptions): Promise<HttpAnswer> {
  if (options.signal.aborted) return Promise.reject(transportError(new Error('aborted before sending'), req, options, false));
  let target: URL;
  try {
    target = new URL(req.url);
  } catch (err) {
    return Promise.reject(new ConnectionError(`Could not reach DGII while ${req.purpose}: the URL is not valid`, null, err));
  }
  const tooLarge = (): TransientAuthorityError => new TransientAuthorityError(`DGII's answer while ${req.purpose} is larger than ${options.maxAnswerBytes} bytes`);
  return new Promise<HttpAnswer>((resolve, reject) => {
    let timedOut = false;
    let settled = false;
    const https = target.protocol === 'https:';
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(req.body.length);
    const request = (https ? httpsRequest : httpRequest)(target, { method: req.method, agent: https ? agents['https:'] : agents['http:'], headers });
    const settle = (err: unknown, answer?: HttpAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      if (answer !== undefined) resolve(answer);
      else {
        request.destroy();
        reject(transportError(err, req, options, timedOut));
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      settle(new Error('timeout'));
    }, options.timeoutMs);
    const onAbort = (): void => settle(options.signal.reason);
    options.signal.addEventListener('abort', onAbort, { once: true });
    request.on('error', (err) => settle(err));
    request.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      // Never followed, as a redirect to elsewhere would carry the token there.
      if (status >= 300 && status < 400) {
        res.resume();
        settle(new TransientAuthorityError(`DGII answered with a redirect (HTTP ${status}) while ${req.purpose}; it is not followed`));
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxAnswerBytes) {
        settle(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxAnswerBytes) settle(tooLarge());
        else chunks.push(chunk);
      });
      res.on('error', (err) => settle(err));
      // Closed before its end: the connection was cut mid-answer ('end' settles a whole one first).
      res.on('close', () => {
        if (!res.complete) settle(Object.assign(new Error('the answer was cut short'), { code: 'ECONNRESET' }));
      });
      res.on('end', () => {
        const contentType = res.headers['content-type'] ?? '';
        const text = Buffer.concat(chunks, size).toString('utf8');
        settle(null, { status, contentType, text, json: parseJson(text, contentType) });
      });
    });
    request.end(req.body);
  });
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
