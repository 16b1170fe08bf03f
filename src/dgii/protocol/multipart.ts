import { randomBytes } from 'node:crypto';

// multipart/form-data (RFC 7578 on the syntax of RFC 2046 §5.1), the only request encoding
// DGII's upload services accept. The parser works on a body already read into memory with a
// size cap, scans it once with Buffer.indexOf, and refuses anything it does not understand
// with a MultipartError: hostile input must never surface as another kind of exception.

export class MultipartError extends Error {
  override name = 'MultipartError';
}

export interface MultipartPart {
  /** The form field name (Content-Disposition `name`). */
  name: string;
  /** The Content-Disposition `filename`, or null for a plain field. */
  filename: string | null;
  /** The part's Content-Type, or null when it sent none. */
  contentType: string | null;
  data: Buffer;
}

export interface MultipartLimits {
  readonly maxBodyBytes: number;
  readonly maxParts: number;
  /** Size of one part's header block. */
  readonly maxHeaderBytes: number;
}

export const DEFAULT_MULTIPART_LIMITS: MultipartLimits = {
  maxBodyBytes: 6 * 1024 * 1024,
  maxParts: 16,
  maxHeaderBytes: 8 * 1024,
};

export interface EncodedMultipart {
  body: Buffer;
  /** The request's Content-Type header, boundary included. */
  contentType: string;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
// RFC 2046 bchars; a space is allowed but not as the last character.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const utf8 = new TextDecoder('utf-8');

// RFC 7578 §4.2 leaves quoting to the HTML rules: percent-encode '"', CR and LF in names.
function quoteName(value: string): string {
  return `"${value.replace(/[\r\n"]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)}"`;
}

/** A body with one file part, as DGII's upload services expect it. */
export function encodeMultipartFile(file: { field: string; filename: string; content: string | Uint8Array; contentType?: string }): EncodedMultipart {
  const boundary = `----ecf-${randomBytes(18).toString('hex')}`;
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name=${quoteName(file.field)}; filename=${quoteName(file.filename)}\r\n` +
    `Content-Type: ${file.contentType ?? 'text/xml'}\r\n\r\n`;
  const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : Buffer.from(file.content);
  const body = Buffer.concat([Buffer.from(head, 'utf8'), content, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8')]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** `type/subtype; a=b; c="d"` → the lower-cased media type and its parameters (names lower-cased). */
function parseParameterised(value: string, what: string): { value: string; params: Map<string, string> } {
  let pos = value.indexOf(';');
  const head = (pos < 0 ? value : value.slice(0, pos)).trim().toLowerCase();
  const params = new Map<string, string>();
  while (pos >= 0 && pos < value.length) {
    pos++; // past ';'
    while (value[pos] === ' ' || value[pos] === '\t') pos++;
    if (pos >= value.length) break;
    const eq = value.indexOf('=', pos);
    if (eq < 0) throw new MultipartError(`${what}: parameter without a value`);
    const name = value.slice(pos, eq).trim().toLowerCase();
    if (!TOKEN.test(name)) throw new MultipartError(`${what}: invalid parameter name`);
    pos = eq + 1;
    let paramValue = '';
    if (value[pos] === '"') {
      pos++;
      let closed = false;
      while (pos < value.length) {
        const c = value[pos] as string;
        if (c === '\\' && pos + 1 < value.length) {
          paramValue += value[pos + 1];
          pos += 2;
        } else if (c === '"') {
          closed = true;
          pos++;
          break;
        } else {
          paramValue += c;
          pos++;
        }
      }
      if (!closed) throw new MultipartError(`${what}: unterminated quoted parameter`);
      const next = value.indexOf(';', pos);
      if (value.slice(pos, next < 0 ? value.length : next).trim() !== '') throw new MultipartError(`${what}: text after a quoted parameter`);
      pos = next;
    } else {
      const next = value.indexOf(';', pos);
      paramValue = value.slice(pos, next < 0 ? value.length : next).trim();
      pos = next;
    }
    if (params.has(name)) throw new MultipartError(`${what}: parameter "${name}" given twice`);
    params.set(name, paramValue);
  }
  return { value: head, params };
}

/** The boundary of a `multipart/form-data` Content-Type header. */
export function multipartBoundary(contentType: string | undefined): string {
  if (contentType === undefined || contentType.trim() === '') throw new MultipartError('the request has no Content-Type; send multipart/form-data');
  if (contentType.length > 1024) throw new MultipartError('the Content-Type header is too long');
  const { value, params } = parseParameterised(contentType, 'Content-Type');
  if (value !== 'multipart/form-data') throw new MultipartError(`expected multipart/form-data, got ${value.slice(0, 100)}`);
  const boundary = params.get('boundary');
  if (boundary === undefined) throw new MultipartError('the multipart Content-Type has no boundary');
  if (!BOUNDARY.test(boundary)) throw new MultipartError('the multipart boundary is not valid (1 to 70 characters of the RFC 2046 set)');
  return boundary;
}

function parsePartHeaders(block: Buffer): { name: string; filename: string | null; contentType: string | null } {
  let disposition: string | undefined;
  let contentType: string | null = null;
  const text = utf8.decode(block);
  for (const line of text === '' ? [] : text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0 || line[0] === ' ' || line[0] === '\t') throw new MultipartError('a part header line is malformed');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (!TOKEN.test(name)) throw new MultipartError('a part header name is malformed');
    if (name === 'content-disposition') {
      if (disposition !== undefined) throw new MultipartError('a part has two Content-Disposition headers');
      disposition = value;
    } else if (name === 'content-type') {
      contentType = value;
    }
  }
  if (disposition === undefined) throw new MultipartError('a part has no Content-Disposition header');
  const parsed = parseParameterised(disposition, 'Content-Disposition');
  if (parsed.value !== 'form-data') throw new MultipartError('a part is not form-data');
  const fieldName = parsed.params.get('name');
  if (fieldName === undefined || fieldName === '') throw new MultipartError('a part has no field name');
  return { name: fieldName, filename: parsed.params.get('filename') ?? null, contentType };
}

function parseBody(body: Buffer, boundary: string, limits: MultipartLimits): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const nextDelimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  // The first delimiter opens the body or follows a preamble line.
  let pos = body.subarray(0, delimiter.length).equals(delimiter) ? 0 : body.indexOf(nextDelimiter);
  if (pos < 0) throw new MultipartError('the body does not contain the boundary');
  pos += pos === 0 ? delimiter.length : nextDelimiter.length;
  const parts: MultipartPart[] = [];
  for (;;) {
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts; // "--": close delimiter; the epilogue is ignored
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++; // transport padding
    if (!body.subarray(pos, pos + 2).equals(CRLF)) throw new MultipartError('a boundary line is not followed by CRLF');
    pos += 2;
    if (parts.length >= limits.maxParts) throw new MultipartError(`more than ${limits.maxParts} parts`);

    let headersEnd: number;
    let contentStart: number;
    if (body.subarray(pos, pos + 2).equals(CRLF)) {
      headersEnd = pos;
      contentStart = pos + 2;
    } else {
      const end = body.subarray(pos, pos + limits.maxHeaderBytes + HEADER_END.length).indexOf(HEADER_END);
      if (end < 0) throw new MultipartError('a part header block is unterminated or too large');
      headersEnd = pos + end;
      contentStart = headersEnd + HEADER_END.length;
    }
    const headers = parsePartHeaders(body.subarray(pos, headersEnd));
    const contentEnd = body.indexOf(nextDelimiter, contentStart);
    if (contentEnd < 0) throw new MultipartError('the body ends before the closing boundary');
    parts.push({ ...headers, data: body.subarray(contentStart, contentEnd) });
    pos = contentEnd + nextDelimiter.length;
  }
}

/**
 * Parses a multipart/form-data body. Throws MultipartError, and only MultipartError, for a
 * missing or invalid boundary, a malformed structure or input beyond `limits`.
 */
export function parseMultipart(contentType: string | undefined, body: Uint8Array, limits: Partial<MultipartLimits> = {}): MultipartPart[] {
  const effective: MultipartLimits = { ...DEFAULT_MULTIPART_LIMITS, ...limits };
  try {
    if (body.length > effective.maxBodyBytes) throw new MultipartError(`the body exceeds ${effective.maxBodyBytes} bytes`);
    const boundary = multipartBoundary(contentType);
    const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    return parseBody(buffer, boundary, effective);
  } catch (err) {
    if (err instanceof MultipartError) throw err;
    throw new MultipartError('the multipart body could not be read');
  }
}

/** The first part named `field` that carries a file name, or null. */
export function findFilePart(parts: readonly MultipartPart[], field: string): MultipartPart | null {
  return parts.find((p) => p.name === field && p.filename !== null) ?? null;
}
