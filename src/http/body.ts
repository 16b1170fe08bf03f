import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';
import type { BodyKind, Headers } from './types.ts';
import { header } from './types.ts';

const MAX_JSON_DEPTH = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the whole body, refusing more than `limit` bytes as soon as that is known. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    throw new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    // The stream's own error ("aborted", ECONNRESET) would pass for a database outage.
    throw new RequestAborted(err);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

/** The request stream failed: the client closed the connection before its body was complete. */
export class RequestAborted extends Error {
  constructor(cause: unknown) {
    super('The client closed the connection before the request body was complete', { cause });
    this.name = 'RequestAborted';
  }
}

/**
 * Reads and drops what is left of a request body whose answer came first (an error, or a
 * route that takes no body), up to `limit` bytes and `ms`. Answering and closing with body
 * bytes still unread makes the kernel reset the connection, and a reset can discard the
 * answer before the client reads it. False when it stopped short: close the connection.
 */
export function discardBody(req: IncomingMessage, limit: number, ms: number): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  if (req.destroyed || Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve(false);
  return new Promise((resolve) => {
    let size = 0;
    const done = (drained: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onError);
      if (!drained) req.pause();
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(false);
    };
    const onEnd = () => done(true);
    const onError = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onError);
    req.resume();
  });
}

function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type, ...params] = contentType.split(';').map((s) => s.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type ?? '')) return false;
  const charset = params.find((p) => p.startsWith('charset='));
  return charset === undefined || /^charset="?utf-8"?$/.test(charset);
}

/**
 * Whether nesting goes deeper than MAX_JSON_DEPTH. Recursive, but never past that depth plus
 * one, so hostile input cannot overflow the stack; and it allocates nothing (it runs on every
 * JSON body).
 */
function tooDeep(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > MAX_JSON_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (tooDeep(value[i], depth + 1)) return true;
    return false;
  }
  for (const key in value) if (tooDeep((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

// PostgreSQL text cannot hold U+0000, and jsonb refuses a lone UTF-16 surrogate (text would
// silently turn it into U+FFFD): a string carrying either would fail deep in a query, or be
// stored altered. JSON can only carry them escaped (the UTF-8 decoder refuses encoded
// surrogates), so bodies without such an escape need no walk.
const NUL_ESCAPE = /\\u0000/;
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
// With the u flag a well-formed pair is one code point, so only a lone half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

type Unstorable = 'nul' | 'surrogate';

function unstorable(text: string): Unstorable | undefined {
  if (text.includes('\0')) return 'nul';
  return LONE_SURROGATE.test(text) ? 'surrogate' : undefined;
}

function findUnstorable(value: unknown): Unstorable | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      const found = unstorable(v);
      if (found !== undefined) return found;
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) {
        const found = unstorable(key);
        if (found !== undefined) return found;
        stack.push(child);
      }
    }
  }
  return undefined;
}

const UNSTORABLE_MESSAGES: Record<Unstorable, string> = {
  nul: 'The request body contains the character U+0000 (\\u0000), which no field accepts',
  surrogate: 'The request body contains a lone UTF-16 surrogate (a \\uD800–\\uDFFF escape without its pair), which is not text and no field accepts',
};

/** Turns the raw bytes into the handler's `body` according to what the route expects. */
export function decodeBody(kind: BodyKind, raw: Buffer, headers: Headers): unknown {
  if (kind === 'none' || kind === 'raw') return undefined;
  if (raw.length === 0 && kind === 'optionalJson') return undefined;
  if (!isJsonMediaType(header(headers, 'content-type'))) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json');
  }
  if (raw.length === 0) throw new AppError('INVALID_JSON', 'The request body is empty; a JSON document is required');
  let text: string;
  let parsed: unknown;
  try {
    text = utf8.decode(raw);
    parsed = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof SyntaxError ? err.message : 'the body is not UTF-8';
    throw new AppError('INVALID_JSON', `The request body is not valid JSON: ${detail}`);
  }
  if (tooDeep(parsed, 1)) {
    throw new AppError('INVALID_JSON', `JSON nesting deeper than ${MAX_JSON_DEPTH} levels is not accepted`);
  }
  if (NUL_ESCAPE.test(text) || SURROGATE_ESCAPE.test(text)) {
    const found = findUnstorable(parsed);
    if (found !== undefined) throw new AppError('INVALID_JSON', UNSTORABLE_MESSAGES[found]);
  }
  return parsed;
}
