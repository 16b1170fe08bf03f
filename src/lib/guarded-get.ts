import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, literalHostReason, type Resolver } from './egress-guard.ts';

// A plain GET of a URL someone else chose (a CRL distribution point named in a certificate),
// through the egress guard: private and reserved destinations are refused unless allowed,
// the whole exchange has one deadline, the body has a cap, and redirects are not followed
// (a redirect could lead past the guard's view of the URL the caller accepted).

export interface GuardedGetOptions {
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: boolean;
  resolve?: Resolver;
}

export class EgressError extends Error {
  override readonly name = 'EgressError';
}

function describe(err: Error & { code?: string }, timeoutMs: number): string {
  switch (err.code) {
    case 'ETIMEDOUT_EGRESS': return `no complete answer within ${timeoutMs} ms`;
    case 'ECONNREFUSED': return 'connection refused';
    case 'ENOTFOUND': return 'the host name does not resolve';
    case 'EFORBIDDEN_DESTINATION': return err.message;
    default: return err.code === undefined ? err.message : `${err.code}: ${err.message}`;
  }
}

/** The body of a 200 answer to GET `url`; EgressError for anything else. */
export function guardedGet(url: string, options: GuardedGetOptions): Promise<Buffer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new EgressError('not a valid URL'));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new EgressError('only http and https URLs are fetched'));
  const literal = options.allowPrivate ? null : literalHostReason(target.hostname);
  if (literal !== null) return Promise.reject(new EgressError(`refused destination: ${literal}`));

  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new EgressError(message));
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'GET',
      agent: false,
      lookup: guardedLookup(options.allowPrivate, options.resolve),
      headers: { accept: '*/*', connection: 'close' },
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_EGRESS' })), options.timeoutMs);
    req.on('error', (err: Error & { code?: string }) => fail(describe(err, options.timeoutMs)));
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        res.destroy();
        return fail(status >= 300 && status < 400 ? `redirect ${status} not followed` : `answered ${status}`);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        res.destroy();
        return fail(`the answer is larger than ${options.maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          res.destroy();
          fail(`the answer is larger than ${options.maxBytes} bytes`);
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
      res.on('close', () => fail('the connection closed before the answer was complete'));
      res.on('error', (err: Error & { code?: string }) => fail(describe(err, options.timeoutMs)));
    });
    req.end();
  });
}
