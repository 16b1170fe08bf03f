import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, literalHostReason } from '../lib/egress-guard.ts';

// One HTTP exchange with another taxpayer's receiver, through the same egress guard as webhooks:
// the directory's URLs are data from outside, so they may not point into the service's network
// unless EXCHANGE_ALLOW_PRIVATE_NETWORKS is set. A deadline covers the whole answer, which is
// capped in size; redirects are not followed.

export interface EgressAnswer {
  status: number;
  contentType: string;
  text: string;
}

export interface EgressRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface EgressOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  signal: AbortSignal;
  maxAnswerBytes: number;
}

/** Worth another try later (the network, a timeout, 5xx), or not (`transient` false). */
export class ExchangeError extends Error {
  override name = 'ExchangeError';
  readonly transient: boolean;
  constructor(message: string, transient: boolean) {
    super(message);
    this.transient = transient;
  }
}

function describe(err: Error & { code?: string }, timeoutMs: number): { message: string; transient: boolean } {
  switch (err.code) {
    case 'ETIMEDOUT_EXCHANGE': return { message: `no answer within ${timeoutMs} ms`, transient: true };
    case 'ECONNREFUSED': return { message: 'connection refused', transient: true };
    case 'ECONNRESET': return { message: 'connection reset by the receiver', transient: true };
    case 'ENOTFOUND': return { message: 'the host name does not resolve', transient: true };
    case 'EFORBIDDEN_DESTINATION':
    case 'ETOOLARGE': return { message: err.message, transient: false };
    default: return { message: err.code === undefined ? err.message : `${err.code}: ${err.message}`, transient: true };
  }
}

export function egress(req: EgressRequest, options: EgressOptions): Promise<EgressAnswer> {
  let target: URL;
  try {
    target = new URL(req.url);
  } catch {
    return Promise.reject(new ExchangeError(`the receiver URL ${req.url.slice(0, 200)} is not valid`, false));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new ExchangeError('the receiver URL must be http or https', false));
  const literal = options.allowPrivate ? null : literalHostReason(target.hostname);
  if (literal !== null) return Promise.reject(new ExchangeError(`refused destination: ${literal}`, false));
  if (options.signal.aborted) return Promise.reject(new ExchangeError('the attempt was cancelled', true));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: Error & { code?: string }): void => {
      if (settled) return;
      settled = true;
      cleanup();
      const { message, transient } = describe(err, options.timeoutMs);
      reject(new ExchangeError(`${req.method} ${target.origin}${target.pathname}: ${message}`, transient));
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(req.body.length);
    const outgoing = send(target, { method: req.method, headers, lookup: guardedLookup(options.allowPrivate) });
    const timer = setTimeout(() => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_EXCHANGE' })), options.timeoutMs);
    const cancel = (): void => void outgoing.destroy(new Error('the attempt was cancelled'));
    options.signal.addEventListener('abort', cancel, { once: true });
    const cleanup = (): void => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', cancel);
    };
    outgoing.on('error', fail);
    outgoing.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxAnswerBytes) {
          res.destroy();
          fail(Object.assign(new Error(`the answer is larger than ${options.maxAnswerBytes} bytes`), { code: 'ETOOLARGE' }));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.end(req.body);
  });
}
