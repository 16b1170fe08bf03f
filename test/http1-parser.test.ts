import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_HEAD_BYTES, ResponseParseError, ResponseParser } from '../src/lib/http1/response-parser.ts';

// The strict HTTP/1.1 response reader of the service's own client, fed whole, byte by byte and
// split at every position: the same answer must come out however the bytes arrive.

type Fed = { parser: ResponseParser; body: Buffer };

/** Feeds `input` (latin1 when a string) cut at the positions `cuts`; the body's bytes are collected. */
function feed(input: string | Buffer, cuts: readonly number[] = [], noBody = false): Fed {
  const all = typeof input === 'string' ? Buffer.from(input, 'latin1') : input;
  const parser = new ResponseParser(noBody);
  const parts: Buffer[] = [];
  let from = 0;
  for (const to of [...cuts, all.length]) {
    parser.feed(all.subarray(from, to), (b) => parts.push(Buffer.from(b)));
    from = to;
  }
  return { parser, body: Buffer.concat(parts) };
}

const byteLength = (input: string | Buffer): number => (typeof input === 'string' ? Buffer.byteLength(input, 'latin1') : input.length);
/** Cuts between every two bytes: the answer fed one byte at a time. */
const everyByte = (input: string | Buffer): number[] => Array.from({ length: byteLength(input) - 1 }, (_, k) => k + 1);
/** Every way of cutting `input` into two non-empty chunks. */
const everySplit = (input: string | Buffer): number[][] => everyByte(input).map((k) => [k]);

function isParseError(e: unknown): boolean {
  assert.ok(e instanceof ResponseParseError, `expected a ResponseParseError, got ${String(e)}`);
  assert.equal(e.code, 'EHTTPPARSE');
  return true;
}

/** Refused whole and fed one byte at a time (small inputs), or whole and in two halves (large ones). */
function assertRefused(input: string | Buffer): void {
  const n = byteLength(input);
  for (const cuts of [[], n <= 4096 ? everyByte(input) : [n >> 1]]) {
    assert.throws(() => feed(input, cuts), isParseError, `cuts: ${cuts.length}`);
  }
}

const head = (...lines: string[]): string => `${lines.join('\r\n')}\r\n\r\n`;

describe('the response parser', () => {
  const clBody = 'hello\r\n\r\nHTTP/1.1 200 OK\r\n'; // looks like a head; must stay body
  const clAnswer = head('HTTP/1.1 200 OK', 'Content-Type: text/plain', `Content-Length: ${clBody.length}`) + clBody;

  test('reads a Content-Length answer fed whole, one byte at a time, and split at every byte', () => {
    for (const cuts of [[], everyByte(clAnswer), ...everySplit(clAnswer)]) {
      const { parser, body } = feed(clAnswer, cuts);
      assert.equal(parser.head?.status, 200);
      assert.deepEqual([...(parser.head?.headers ?? [])], [['content-type', 'text/plain'], ['content-length', String(clBody.length)]]);
      assert.equal(parser.declaredLength, clBody.length);
      assert.equal(body.toString('latin1'), clBody, `cuts ${cuts.join(',')}`);
      assert.equal(parser.complete, true);
      assert.equal(parser.reusable, true);
      assert.doesNotThrow(() => parser.end());
    }
  });

  test('is not complete until the last byte of a Content-Length body, and at once with Content-Length: 0', () => {
    const short = feed(clAnswer.slice(0, -1));
    assert.equal(short.parser.complete, false);
    assert.equal(short.parser.reusable, false);
    assert.equal(short.body.toString('latin1'), clBody.slice(0, -1));
    const empty = feed(head('HTTP/1.1 200 OK', 'Content-Length: 0'));
    assert.equal(empty.parser.complete, true);
    assert.equal(empty.parser.reusable, true);
    assert.equal(empty.body.length, 0);
  });

  const chunked = head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked') +
    '5;x=y\r\nhello\r\n1 ;a="b c"\r\n \r\nA\r\n0123\r\n\r\n89\r\n0\r\nX-Trailer: t\r\nX-Other:  u \r\n\r\n';

  test('reads a chunked answer with extensions and trailers split at every byte', () => {
    for (const cuts of [[], everyByte(chunked), ...everySplit(chunked)]) {
      const { parser, body } = feed(chunked, cuts);
      assert.equal(body.toString('latin1'), 'hello 0123\r\n\r\n89', `cuts ${cuts.join(',')}`);
      assert.equal(parser.head?.status, 200);
      assert.equal(parser.head?.headers.has('x-trailer'), false);
      assert.equal(parser.declaredLength, null);
      assert.equal(parser.complete, true);
      assert.equal(parser.reusable, true);
    }
    assert.equal(feed(chunked.slice(0, -2)).parser.complete, false); // before the blank line ending the trailers
  });

  test('accepts a Transfer-Encoding of chunked in any case', () => {
    const { parser, body } = feed(head('HTTP/1.1 200 OK', 'Transfer-Encoding: Chunked') + '2\r\nok\r\n0\r\n\r\n');
    assert.equal(body.toString(), 'ok');
    assert.equal(parser.reusable, true);
  });

  test('completes 204 and 304 answers right after the head, whatever their Content-Length', () => {
    for (const status of ['204 No Content', '304 Not Modified']) {
      const { parser, body } = feed(head(`HTTP/1.1 ${status}`, 'Content-Length: 10'));
      assert.equal(parser.head?.status, Number(status.slice(0, 3)));
      assert.equal(parser.complete, true);
      assert.equal(parser.reusable, true);
      assert.equal(body.length, 0);
    }
  });

  test('completes the answer to a HEAD request right after the head', () => {
    const answer = head('HTTP/1.1 200 OK', 'Content-Length: 10');
    const asHead = feed(answer, [], true);
    assert.equal(asHead.parser.complete, true);
    assert.equal(asHead.parser.reusable, true);
    assert.equal(asHead.body.length, 0);
    assert.equal(feed(answer).parser.complete, false); // the same head to a GET awaits 10 bytes
  });

  test('reads an answer with neither length nor chunked until the connection ends', () => {
    const { parser, body } = feed(head('HTTP/1.1 200 OK', 'Content-Type: text/plain') + 'abc', [20]);
    const parts = [body];
    parser.feed(Buffer.from('def'), (b) => parts.push(Buffer.from(b)));
    assert.equal(parser.complete, false);
    assert.equal(parser.declaredLength, null);
    parser.end();
    assert.equal(Buffer.concat(parts).toString(), 'abcdef');
    assert.equal(parser.complete, true);
    assert.equal(parser.reusable, false);
  });

  test('does not reuse a connection the answer says it closes, in any case, in a list', () => {
    for (const value of ['close', 'CLOSE', 'keep-alive, Close', 'keep-alive,close ']) {
      const { parser } = feed(head('HTTP/1.1 200 OK', `Connection: ${value}`, 'Content-Length: 0'));
      assert.equal(parser.complete, true);
      assert.equal(parser.reusable, false, value);
    }
    assert.equal(feed(head('HTTP/1.1 200 OK', 'Connection: keep-alive', 'Connection: close', 'Content-Length: 0')).parser.reusable, false);
    // A token that merely contains "close" is not close.
    assert.equal(feed(head('HTTP/1.1 200 OK', 'Connection: keep-alive, closed', 'Content-Length: 0')).parser.reusable, true);
  });

  test('does not reuse an HTTP/1.0 connection', () => {
    const { parser, body } = feed(head('HTTP/1.0 200 OK', 'Connection: keep-alive', 'Content-Length: 2') + 'ok');
    assert.equal(body.toString(), 'ok');
    assert.equal(parser.complete, true);
    assert.equal(parser.reusable, false);
  });

  test('does not reuse a connection that sent bytes after the end of the answer', () => {
    const same = feed(clAnswer + 'X');
    assert.equal(same.body.toString('latin1'), clBody);
    assert.equal(same.parser.complete, true);
    assert.equal(same.parser.reusable, false);
    assert.equal(feed(clAnswer + 'X', [clAnswer.length]).parser.reusable, false);
    assert.equal(feed(chunked + 'HTTP/1.1').parser.reusable, false);
    assert.equal(feed(head('HTTP/1.1 204 No Content') + 'abc').parser.reusable, false);
    assert.equal(feed(head('HTTP/1.1 200 OK', 'Content-Length: 3') + 'abc', [], true).parser.reusable, false);
  });

  test('skips 100 and 103 interim answers and keeps the final head', () => {
    const answer = head('HTTP/1.1 100 Continue') + head('HTTP/1.1 103 Early Hints', 'Link: </a.css>; rel=preload') +
      head('HTTP/1.1 201 Created', 'Content-Length: 2') + 'ok';
    for (const cuts of [[], everyByte(answer), ...everySplit(answer)]) {
      const { parser, body } = feed(answer, cuts);
      assert.equal(parser.head?.status, 201);
      assert.deepEqual([...(parser.head?.headers.keys() ?? [])], ['content-length']);
      assert.equal(body.toString(), 'ok');
      assert.equal(parser.reusable, true);
    }
    const interimOnly = feed(head('HTTP/1.1 100 Continue'));
    assert.equal(interimOnly.parser.head, null);
    assert.equal(interimOnly.parser.complete, false);
  });

  test('refuses 101 Switching Protocols', () => assertRefused(head('HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: upgrade')));

  test('refuses bad status lines', () => {
    for (const line of ['HTTP/2 200', 'HTTP/1.1 20', 'ICY 200 OK', 'HTTP/1.1 200OK', 'http/1.1 200 OK', 'HTTP/1.1  200 OK', 'HTTP/1.1 099 Low', 'HTTP/1.1 200 O\x00K']) {
      assertRefused(head(line, 'Content-Length: 0'));
    }
  });

  test('refuses a bare LF line end in the head', () => {
    assertRefused('HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n');
    assertRefused('HTTP/1.1 200 OK\r\nX: a\nContent-Length: 0\r\n\r\n');
  });

  test('refuses an obs-fold continuation line', () => {
    assertRefused(head('HTTP/1.1 200 OK', 'X: a', ' b', 'Content-Length: 0'));
    assertRefused(head('HTTP/1.1 200 OK', 'X: a', '\tb', 'Content-Length: 0'));
  });

  test('refuses malformed header fields', () => {
    for (const field of ['Content-Length : 0', 'No colon', ': empty name', 'X(y): z', 'X: a\x7fb', 'X: a\rb']) {
      assertRefused(head('HTTP/1.1 200 OK', field, 'Content-Length: 0'));
    }
  });

  test('refuses both Transfer-Encoding and Content-Length', () => {
    assertRefused(head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked', 'Content-Length: 2') + '2\r\nok\r\n0\r\n\r\n');
  });

  test('refuses a transfer coding other than exactly chunked', () => {
    for (const coding of ['gzip', 'gzip, chunked', 'chunked, gzip', 'identity']) {
      assertRefused(head('HTTP/1.1 200 OK', `Transfer-Encoding: ${coding}`) + '0\r\n\r\n');
    }
  });

  test('refuses a Content-Length that varies or is not a number', () => {
    assertRefused(head('HTTP/1.1 200 OK', 'Content-Length: 5, 6') + 'hello!');
    assertRefused(head('HTTP/1.1 200 OK', 'Content-Length: 5', 'Content-Length: 6') + 'hello!');
    for (const value of ['abc', '-1', '+5', '5.0', '0x5', '', '1 2', '1234567890123456']) {
      assertRefused(head('HTTP/1.1 200 OK', `Content-Length: ${value}`) + 'hello');
    }
  });

  test('accepts a Content-Length repeated with the same value', () => {
    for (const fields of [['Content-Length: 5, 5'], ['Content-Length: 5', 'content-length: 5']]) {
      const { parser, body } = feed(head('HTTP/1.1 200 OK', ...fields) + 'hello');
      assert.equal(parser.declaredLength, 5);
      assert.equal(body.toString(), 'hello');
      assert.equal(parser.reusable, true);
    }
  });

  test(`bounds the head at MAX_HEAD_BYTES (${MAX_HEAD_BYTES})`, () => {
    const fill = (total: number): string => {
      const bare = head('HTTP/1.1 200 OK', 'X: ', 'Content-Length: 0');
      return head('HTTP/1.1 200 OK', `X: ${'a'.repeat(total - bare.length)}`, 'Content-Length: 0');
    };
    assert.equal(fill(MAX_HEAD_BYTES).length, MAX_HEAD_BYTES);
    for (const cuts of [[], [100], [MAX_HEAD_BYTES - 2]]) assert.equal(feed(fill(MAX_HEAD_BYTES), cuts).parser.reusable, true);
    assertRefused(fill(MAX_HEAD_BYTES + 1));
    // Without its end: kept up to the bound, refused one byte beyond it.
    const open = `HTTP/1.1 200 OK\r\nX: ${'a'.repeat(MAX_HEAD_BYTES)}`;
    const kept = feed(open.slice(0, MAX_HEAD_BYTES), [1000]);
    assert.equal(kept.parser.complete, false);
    assert.throws(() => kept.parser.end(), isParseError);
    assertRefused(open.slice(0, MAX_HEAD_BYTES + 1));
  });

  test('accepts 200 header fields and refuses 201', () => {
    const fields = (n: number): string[] => Array.from({ length: n }, (_, k) => `X-${k}: ${k}`);
    const { parser } = feed(head('HTTP/1.1 204 No Content', ...fields(200)));
    assert.equal(parser.head?.headers.size, 200);
    assertRefused(head('HTTP/1.1 204 No Content', ...fields(201)));
  });

  const chunkedHead = head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked');

  test('refuses an invalid chunk size', () => {
    for (const size of ['zz', '', '-1', '0x5', '12345678901234', ';x=y', '5\x00']) {
      assertRefused(`${chunkedHead}${size}\r\nhello\r\n0\r\n\r\n`);
    }
    assertRefused(`${chunkedHead}5\nhello\r\n0\r\n\r\n`);
  });

  test('refuses a chunk longer than its size', () => {
    assertRefused(`${chunkedHead}3\r\nabcd\r\n0\r\n\r\n`);
    assertRefused(`${chunkedHead}3\r\nabc\n0\r\n\r\n`);
    assertRefused(`${chunkedHead}3\r\nabc\r0\r\n\r\n`);
  });

  test('bounds a chunk-size line at 1024 bytes', () => {
    const line = (length: number): string => `2;${'e'.repeat(length - 4)}\r\n`; // CRLF included
    assert.equal(line(1024).length, 1024);
    const withLine = (length: number): string => `${chunkedHead}${line(length)}ok\r\n0\r\n\r\n`;
    const ok = feed(withLine(1024), [chunkedHead.length + 500]);
    assert.equal(ok.body.toString(), 'ok');
    assert.equal(ok.parser.reusable, true);
    assertRefused(withLine(1025));
    assertRefused(`${chunkedHead}2;${'e'.repeat(2000)}`); // never ends
  });

  test('refuses invalid trailers and a trailer section that does not end within MAX_HEAD_BYTES', () => {
    assertRefused(`${chunkedHead}0\r\nX : y\r\n\r\n`);
    assertRefused(`${chunkedHead}0\r\nX: y\r\n z\r\n\r\n`);
    assertRefused(`${chunkedHead}0\r\nX: y\n\r\n`);
    const many = 'X-T: v\r\n'.repeat(Math.ceil(MAX_HEAD_BYTES / 8) + 1);
    assertRefused(`${chunkedHead}0\r\n${many}\r\n`);
    assertRefused(`${chunkedHead}0\r\nX: ${'v'.repeat(MAX_HEAD_BYTES)}`);
  });

  test('refuses end() before the head, within a Content-Length body, or within a chunked body', () => {
    const ends = (input: string): void => {
      const { parser } = feed(input);
      assert.equal(parser.complete, false);
      assert.throws(() => parser.end(), isParseError, JSON.stringify(input));
    };
    assert.throws(() => new ResponseParser().end(), isParseError);
    ends('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n');
    ends(head('HTTP/1.1 100 Continue'));
    ends(head('HTTP/1.1 200 OK', 'Content-Length: 5') + 'hell');
    for (const cut of [chunkedHead.length + 1, chunkedHead.length + 4, chunkedHead.length + 8, chunked.length - 2, chunked.length - 1]) {
      ends(chunked.slice(0, cut));
    }
  });

  test('joins repeated fields with ", ", lower-cases names and trims values', () => {
    const { parser } = feed(head('HTTP/1.1 200 OK', 'Set-Thing: a', 'X-Pad: \t b  c \t', 'SET-THING:c', 'X-Empty:', 'Content-Length: 0'));
    const headers = parser.head?.headers;
    assert.equal(headers?.get('set-thing'), 'a, c');
    assert.equal(headers?.get('x-pad'), 'b  c');
    assert.equal(headers?.get('x-empty'), '');
    assert.equal(headers?.has('Set-Thing'), false);
  });

  test('accepts bytes 0x80-0xff in the reason phrase and header values as latin1', () => {
    const high = Buffer.from([0x80, 0xe9, 0xff]);
    const answer = Buffer.concat([Buffer.from('HTTP/1.1 200 R'), high, Buffer.from('\r\nX-Name: a'), high, Buffer.from('\r\nContent-Length: 1\r\n\r\n'), high.subarray(1, 2)]);
    for (const cuts of [[], everyByte(answer)]) {
      const { parser, body } = feed(answer, cuts);
      assert.equal(parser.head?.status, 200);
      assert.equal(parser.head?.headers.get('x-name'), 'a\x80\xe9\xff');
      assert.deepEqual(body, Buffer.from([0xe9]));
      assert.equal(parser.reusable, true);
    }
  });
});
