import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppError } from '../errors.ts';
import { errorBody } from './error-response.ts';
import { set, setAll } from './header-list.ts';
import type { Reply } from './types.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes the server's answers; `extra` is the RateLimit fields the request has earned. */
export interface ResponseWriter {
  /**
   * Writes a whole answer with one writeHead: the service's fixed headers, the request id,
   * then `extra` (rate-limit fields) and `own` (the reply's or error's), later ones winning.
   */
  write(res: ServerResponse, requestId: string, status: number, contentType: string | null, extra: Record<string, string>, own: Record<string, string> | undefined, body: Buffer | string | undefined): void;
  sendReply(res: ServerResponse, requestId: string, reply: Reply, extra: Record<string, string>): void;
  /** Streams a body; a client that leaves ends it quietly, a failing source cuts the answer. */
  sendStream(res: ServerResponse, requestId: string, reply: Reply & { stream: NonNullable<Reply['stream']> }, extra: Record<string, string>): Promise<void>;
  sendError(res: ServerResponse, requestId: string, err: AppError, extra: Record<string, string>): void;
}

/** `draining` tells whether the server is closing: its answers then close their connections. */
export function createResponseWriter(draining: () => boolean): ResponseWriter {
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
    if (draining()) set(list, 'connection', 'close');
    return list;
  }

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

  return { write, sendReply, sendStream, sendError };
}
