import { TransientAuthorityError } from '../authority.ts';

// One HTTP exchange with DGII over the global fetch: a deadline that also covers reading the
// answer, the caller's cancellation, a cap on the answer's size, and every transport failure
// turned into TransientAuthorityError (the job queue decides when to try again).

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
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

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

async function readCapped(res: Response, max: number, purpose: string): Promise<string> {
  if (res.body === null) return '';
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await res.body.cancel().catch(() => undefined);
    throw new TransientAuthorityError(`DGII's answer while ${purpose} is larger than ${max} bytes`);
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new TransientAuthorityError(`DGII's answer while ${purpose} is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
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

async function attempt(req: HttpRequest, options: HttpOptions): Promise<HttpAnswer> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(options.signal.reason);
  options.signal.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, options.timeoutMs);
  try {
    if (options.signal.aborted) throw new Error('aborted before sending');
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body === undefined ? undefined : new Uint8Array(req.body),
      signal: controller.signal,
      redirect: 'error',
    });
    const contentType = res.headers.get('content-type') ?? '';
    const text = await readCapped(res, options.maxAnswerBytes, req.purpose);
    return { status: res.status, contentType, text, json: parseJson(text, contentType) };
  } catch (err) {
    if (err instanceof TransientAuthorityError) throw err;
    if (options.signal.aborted) throw new TransientAuthorityError(`Cancelled while ${req.purpose}`, { cause: err });
    if (timedOut) throw new TransientAuthorityError(`DGII did not answer within ${options.timeoutMs} ms while ${req.purpose}`, { cause: err });
    const code = errorCode(err);
    throw new ConnectionError(`Could not reach DGII while ${req.purpose}${code === null ? '' : ` (${code})`}`, code, err);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
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
