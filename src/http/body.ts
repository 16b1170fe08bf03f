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
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes`);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type, ...params] = contentType.split(';').map((s) => s.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type ?? '')) return false;
  const charset = params.find((p) => p.startsWith('charset='));
  return charset === undefined || /^charset="?utf-8"?$/.test(charset);
}

/** Depth of nesting, measured without recursion so hostile input cannot overflow the stack. */
function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > MAX_JSON_DEPTH) return max;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** Turns the raw bytes into the handler's `body` according to what the route expects. */
export function decodeBody(kind: BodyKind, raw: Buffer, headers: Headers): unknown {
  if (kind === 'none' || kind === 'raw') return undefined;
  if (raw.length === 0 && kind === 'optionalJson') return undefined;
  if (!isJsonMediaType(header(headers, 'content-type'))) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json');
  }
  if (raw.length === 0) throw new AppError('INVALID_JSON', 'The request body is empty; a JSON document is required');
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(raw));
  } catch (err) {
    const detail = err instanceof SyntaxError ? err.message : 'the body is not UTF-8';
    throw new AppError('INVALID_JSON', `The request body is not valid JSON: ${detail}`);
  }
  if (jsonDepth(parsed) > MAX_JSON_DEPTH) {
    throw new AppError('INVALID_JSON', `JSON nesting deeper than ${MAX_JSON_DEPTH} levels is not accepted`);
  }
  return parsed;
}
