// An HTTP/1.1 response read byte by byte as it arrives, for the service's own client
// (./client.ts). Strict where a lenient reader would let two parties disagree about where an
// answer ends (RFC 9112): CRLF line ends, no folded header lines, no Content-Length beside
// Transfer-Encoding, no Content-Length that varies, no coding but chunked. Interim answers
// (1xx) are read and left out; 101 is refused, as the client never asks to switch protocols.
// The head is bounded by MAX_HEAD_BYTES, a chunk-size line and the trailers as well; the body's
// bound is the caller's (it stops reading).

const CR = 13;
const LF = 10;
export const MAX_HEAD_BYTES = 16 * 1024;
const MAX_HEADERS = 200;
const MAX_CHUNK_LINE = 1024;

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [\t\x20-\x7e\x80-\xff]*)?$/;
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[\t ]*([\t\x20-\x7e\x80-\xff]*?)[\t ]*$/;
const CHUNK_LINE = /^([0-9A-Fa-f]{1,13})[\t ]*(?:;[\t\x20-\x7e\x80-\xff]*)?$/;

/** An answer that is not HTTP/1.1 as this reader accepts it. */
export class ResponseParseError extends Error {
  override name = 'ResponseParseError';
  readonly code = 'EHTTPPARSE';
}

export interface ResponseHead {
  status: number;
  /** Lower-case names; a repeated field's values joined with ", ". */
  headers: Map<string, string>;
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'close' | 'done';

export class ResponseParser {
  /** The final (non-1xx) head, once read. */
  head: ResponseHead | null = null;
  /** The body's declared length, when it has one. */
  declaredLength: number | null = null;
  private state: State = 'head';
  private pending: Buffer | null = null;
  private left = 0;
  private http10 = false;
  private closeAfter = false;
  private extra = false;
  private readonly noBody: boolean;

  /** `noBody`: the request was HEAD, whose answer has none whatever its head says. */
  constructor(noBody = false) {
    this.noBody = noBody;
  }

  get complete(): boolean {
    return this.state === 'done';
  }

  /** Complete, framed by its length, HTTP/1.1 without `Connection: close`, and nothing after it. */
  get reusable(): boolean {
    return this.state === 'done' && !this.http10 && !this.closeAfter && !this.extra;
  }

  /** Reads `chunk`; the body's bytes go to `onBody`. Throws ResponseParseError. */
  feed(chunk: Buffer, onBody: (bytes: Buffer) => void): void {
    let i = 0;
    while (i < chunk.length) {
      switch (this.state) {
        case 'head': {
          const end = this.headEnd(chunk, i);
          if (end < 0) return;
          i = end;
          break;
        }
        case 'length':
          i = this.bodyBytes(chunk, i, onBody, 'done');
          break;
        case 'chunk-size': {
          const line = this.line(chunk, i, MAX_CHUNK_LINE, 'a chunk size line');
          if (line === null) return;
          i = line.next;
          const m = CHUNK_LINE.exec(line.text);
          if (m?.[1] === undefined) throw new ResponseParseError('a chunk size is not valid');
          this.left = Number.parseInt(m[1], 16);
          this.state = 'chunk-data';
          if (this.left === 0) {
            // The last chunk; `left` is now what the trailer section may still take.
            this.state = 'trailers';
            this.left = MAX_HEAD_BYTES;
          }
          break;
        }
        case 'chunk-data':
          i = this.bodyBytes(chunk, i, onBody, 'chunk-end');
          break;
        case 'chunk-end': {
          // Bounded at 2 bytes: nothing but the CRLF may follow a chunk's data.
          const line = this.line(chunk, i, 2, 'a chunk');
          if (line === null) return;
          i = line.next;
          this.state = 'chunk-size';
          break;
        }
        case 'trailers': {
          // Read and left out.
          const line = this.line(chunk, i, this.left, 'the trailers');
          if (line === null) return;
          this.left -= line.length;
          i = line.next;
          if (line.text === '') this.state = 'done';
          else if (!HEADER_LINE.test(line.text)) throw new ResponseParseError('a trailer field is not valid');
          break;
        }
        case 'close':
          onBody(chunk.subarray(i));
          return;
        case 'done':
          // Bytes after the end of the answer: the two ends disagree on where it ended.
          this.extra = true;
          return;
      }
    }
  }

  /** Up to `left` body bytes from `i` to `onBody`; `then` once they are all read. The index after them. */
  private bodyBytes(chunk: Buffer, i: number, onBody: (bytes: Buffer) => void, then: State): number {
    const n = Math.min(this.left, chunk.length - i);
    onBody(chunk.subarray(i, i + n));
    this.left -= n;
    if (this.left === 0) this.state = then;
    return i + n;
  }

  /** The connection ended. Throws when the answer was not complete (a close-framed body is, then). */
  end(): void {
    if (this.state === 'close') this.state = 'done';
    if (this.state !== 'done') throw new ResponseParseError(this.head === null ? 'the connection closed before an answer' : 'the connection closed before the end of the answer');
  }

  /** Finds the end of the head in `chunk` from `i`; -1 when it is not there yet (kept). */
  private headEnd(chunk: Buffer, i: number): number {
    const start = this.pending === null ? 0 : this.pending.length;
    const data = this.pending === null ? chunk.subarray(i) : Buffer.concat([this.pending, chunk.subarray(i)]);
    // The terminator may straddle the previous chunk: look from three bytes before the new ones.
    const at = data.indexOf('\r\n\r\n', Math.max(0, start - 3), 'latin1');
    if (at < 0 || at + 4 > MAX_HEAD_BYTES) {
      if (data.length > MAX_HEAD_BYTES) throw new ResponseParseError(`the answer's head is larger than ${MAX_HEAD_BYTES} bytes`);
      this.pending = Buffer.from(data);
      return -1;
    }
    this.pending = null;
    this.readHead(data.toString('latin1', 0, at));
    return i + (at + 4 - start);
  }

  private readHead(text: string): void {
    const lines = text.split('\r\n');
    const m = STATUS_LINE.exec(lines[0] ?? '');
    if (m === null) throw new ResponseParseError('the status line is not valid');
    const status = Number(m[2]);
    if (lines.length - 1 > MAX_HEADERS) throw new ResponseParseError(`the answer has more than ${MAX_HEADERS} header fields`);
    const headers = new Map<string, string>();
    for (let n = 1; n < lines.length; n++) {
      const h = HEADER_LINE.exec(lines[n] as string);
      if (h === null) throw new ResponseParseError('a header field is not valid');
      const name = (h[1] as string).toLowerCase();
      const prior = headers.get(name);
      headers.set(name, prior === undefined ? (h[2] as string) : `${prior}, ${h[2] as string}`);
    }
    if (status === 101) throw new ResponseParseError('the server switched protocols, which was not asked');
    // An interim answer: the final one follows.
    if (status < 200) return;
    this.head = { status, headers };
    this.http10 = m[1] === '0';
    this.closeAfter = (headers.get('connection') ?? '').split(',').some((t) => t.trim().toLowerCase() === 'close');
    this.state = this.framing(status, headers);
  }

  private framing(status: number, headers: Map<string, string>): State {
    if (this.noBody || status === 204 || status === 304) return 'done';
    const coding = headers.get('transfer-encoding');
    const length = headers.get('content-length');
    if (coding !== undefined) {
      if (length !== undefined) throw new ResponseParseError('the answer has both Transfer-Encoding and Content-Length');
      if (coding.trim().toLowerCase() !== 'chunked') throw new ResponseParseError(`the transfer coding "${coding}" is not supported`);
      return 'chunk-size';
    }
    if (length !== undefined) {
      const values = new Set(length.split(',').map((v) => v.trim()));
      const [only] = values;
      if (values.size !== 1 || only === undefined || !/^\d{1,15}$/.test(only)) throw new ResponseParseError('the Content-Length is not valid');
      this.left = Number(only);
      this.declaredLength = this.left;
      return this.left === 0 ? 'done' : 'length';
    }
    this.closeAfter = true;
    return 'close';
  }

  /**
   * The next CRLF-ended line from `i` (without its CRLF), or null when it is not all there
   * yet (kept). A line longer than `max` bytes with its end, or a bare LF, is refused.
   */
  private line(chunk: Buffer, i: number, max: number, what: string): { text: string; next: number; length: number } | null {
    const lf = chunk.indexOf(LF, i);
    const before = this.pending?.length ?? 0;
    const length = before + (lf < 0 ? chunk.length : lf + 1) - i;
    if (length > max) throw new ResponseParseError(`${what} is too long`);
    if (lf < 0) {
      this.pending = this.pending === null ? Buffer.from(chunk.subarray(i)) : Buffer.concat([this.pending, chunk.subarray(i)]);
      return null;
    }
    const whole = this.pending === null ? chunk.subarray(i, lf + 1) : Buffer.concat([this.pending, chunk.subarray(i, lf + 1)]);
    this.pending = null;
    if (whole.length < 2 || whole[whole.length - 2] !== CR) throw new ResponseParseError(`${what} does not end with CRLF`);
    return { text: whole.toString('latin1', 0, whole.length - 2), next: lf + 1, length };
  }
}
