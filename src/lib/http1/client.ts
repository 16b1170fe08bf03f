import { giveBack, take, type Connection, type Origin } from './connections.ts';
import { ResponseParser, type ResponseHead } from './response-parser.ts';

// The service's HTTP/1.1 client for its hot paths: a document's upload and status query to DGII
// and each webhook delivery, six exchanges per document. Through node:http they cost the
// service about 60 µs of CPU each in the pipeline benchmark (the request object, its streams,
// the agent), a sixth of its CPU per document; this client writes the request in one piece and
// reads the answer with ./response-parser.ts. What it does not do, its callers never need:
// no redirects (a 3xx is an answer), no compression, no request body streamed, no proxy.
//
// One exchange per connection at a time; connections are kept alive (./connections.ts). A
// failure carries the socket's code (ECONNREFUSED, ECONNRESET, EPIPE…), so callers can tell
// whether the request reached the server; an answer cut short is ECONNRESET.

export interface Http1Request extends Origin {
  method: 'GET' | 'POST' | 'HEAD';
  /** Host, Content-Length, Transfer-Encoding and Connection are the client's. */
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Until the whole answer is read, connection included. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Body bytes kept; the answer's text beyond them is read and dropped. */
  keepBytes: number;
  /** Body bytes read at most: beyond them (or a larger Content-Length) the answer is `truncated` and the connection closed. */
  maxBytes: number;
}

export interface Http1Answer extends ResponseHead {
  body: Buffer;
  /** The body was larger than `maxBytes`: `body` holds its first `keepBytes`, and it was not read to its end. */
  truncated: boolean;
}

/** No whole answer within the request's timeoutMs. */
export const TIMEOUT_CODE = 'EANSWERTIMEOUT';

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Visible ASCII only: a line break would end the head where its author meant a field.
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
const OWN_FIELDS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

function head(req: Http1Request, bodyLength: number | null): string {
  let text = `${req.method} ${req.url.pathname}${req.url.search} HTTP/1.1\r\nhost: ${req.url.host}\r\n`;
  for (const name in req.headers) {
    const value = req.headers[name] as string;
    if (!FIELD_NAME.test(name) || !FIELD_VALUE.test(value) || OWN_FIELDS.has(name.toLowerCase())) throw new TypeError(`the header ${JSON.stringify(name)} cannot be sent`);
    text += `${name}: ${value}\r\n`;
  }
  if (bodyLength !== null) text += `content-length: ${bodyLength}\r\n`;
  return `${text}\r\n`;
}

function failure(message: string, code: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

/** Sends the request once and reads its answer. Rejects on any transport failure or an answer that is not valid HTTP/1.1. */
export function send(req: Http1Request): Promise<Http1Answer> {
  if (req.url.protocol !== 'http:' && req.url.protocol !== 'https:') return Promise.reject(new TypeError(`${req.url.protocol} is not http or https`));
  if (req.signal?.aborted === true) return Promise.reject(failure('cancelled before sending', 'ABORT_ERR', req.signal.reason));
  let text: string;
  try {
    const length = req.body === undefined ? (req.method === 'POST' ? 0 : null) : Buffer.byteLength(req.body);
    text = head(req, length);
  } catch (err) {
    return Promise.reject(err);
  }
  return new Promise<Http1Answer>((resolve, reject) => {
    const conn: Connection = take(req);
    if (conn.socket.destroyed) {
      reject(failure('the connection closed before the request', 'ECONNRESET'));
      return;
    }
    const parser = new ResponseParser(req.method === 'HEAD');
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;
    let settled = false;
    const timer = setTimeout(() => fail(failure(`no whole answer within ${req.timeoutMs} ms`, TIMEOUT_CODE)), req.timeoutMs);
    const onAbort = (): void => fail(failure('cancelled', 'ABORT_ERR', req.signal?.reason));
    req.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (truncated: boolean): void => {
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      const answer = parser.head as ResponseHead;
      if (!truncated && parser.reusable) giveBack(conn);
      else {
        conn.exchange = null;
        conn.socket.destroy();
      }
      resolve({ status: answer.status, headers: answer.headers, body: kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept, keptBytes), truncated });
    };
    function fail(err: Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      conn.exchange = null;
      conn.socket.destroy();
      reject(err);
    }
    const onBody = (bytes: Buffer): void => {
      readBytes += bytes.length;
      if (keptBytes < req.keepBytes) {
        const part = bytes.subarray(0, req.keepBytes - keptBytes);
        // Copied: the socket's buffer is not ours to hold.
        kept.push(Buffer.from(part));
        keptBytes += part.length;
      }
    };
    conn.exchange = {
      data(bytes) {
        if (settled) return;
        const before = parser.head;
        try {
          parser.feed(bytes, onBody);
        } catch (err) {
          fail(err as Error);
          return;
        }
        if (before === null && parser.head !== null && (parser.declaredLength ?? 0) > req.maxBytes) finish(true);
        else if (readBytes > req.maxBytes) finish(true);
        else if (parser.complete) finish(false);
      },
      closed() {
        if (settled) return;
        try {
          parser.end();
        } catch (err) {
          fail(failure((err as Error).message, 'ECONNRESET', err));
          return;
        }
        finish(false);
      },
      error(err) {
        fail(err);
      },
    };
    if (req.body === undefined || typeof req.body === 'string') conn.socket.write(req.body === undefined ? text : text + req.body, 'utf8');
    else {
      conn.socket.cork();
      conn.socket.write(text, 'latin1');
      conn.socket.write(req.body);
      conn.socket.uncork();
    }
  });
}
