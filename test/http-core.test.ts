import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { AppError } from '../src/errors.ts';
import { Router } from '../src/http/router.ts';
import { createHttpServer, type HttpServer } from '../src/http/server.ts';
import { RateLimits } from '../src/ratelimit/limiter.ts';
import { createLogger } from '../src/log.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { call } from './helpers/http.ts';
import { TEST_MASTER_KEY } from './helpers/service.ts';
import { uploadFromAnotherThread } from './helpers/upload-client.ts';
import { waitFor } from './helpers/wait.ts';

// The HTTP core in isolation: a router with test routes, a stub authenticator.
const logLines: string[] = [];
const signals: AbortSignal[] = [];
/** What the /stream route's source has been asked for: chunks pulled, and whether it was closed. */
const streamed = { pulled: 0, closed: false };
const STREAM_CHUNK = Buffer.alloc(64 * 1024, 'x');
const STREAM_CHUNKS = 4_096;
let server: HttpServer;
let url: string;
let db: TestDatabase;

const config = loadConfig({ PORT: '0', ECF_MASTER_KEY: TEST_MASTER_KEY, HTTP_BODY_LIMIT_BYTES: '2048', HTTP_MAX_HEADER_SIZE: '2048' });

function rawRequest(port: number, payload: string, halfClose = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => (halfClose ? socket.end(payload) : socket.write(payload)));
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

before(async () => {
  db = await createTestDatabase();
  const router = new Router();
  const doc = { operationId: 'x', summary: 'x', tags: [], responses: {} };
  router.add({ method: 'GET', path: '/{env}/things/{id}', auth: 'none', doc, handler: async (ctx) => ({ status: 200, body: { env: ctx.env, id: ctx.params.id } }) });
  router.add({ method: 'POST', path: '/{env}/things', auth: 'none', body: 'json', doc, handler: async (ctx) => ({ status: 201, body: { got: ctx.body } }) });
  router.add({ method: 'GET', path: '/boom', auth: 'none', doc, handler: async () => { throw new Error('secret internals: password=hunter2'); } });
  router.add({ method: 'GET', path: '/db-down', auth: 'none', doc, handler: async () => { throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }); } });
  // Query parameters straight into SQL, as an input path that forgot its check would.
  router.add({ method: 'GET', path: '/echo-text', auth: 'none', doc, handler: async (ctx) => ({ status: 200, body: await db.db.sql`select ${ctx.query.get('v') ?? ''}::text as v` }) });
  router.add({ method: 'GET', path: '/echo-uuid', auth: 'none', doc, handler: async (ctx) => ({ status: 200, body: await db.db.sql`select ${ctx.query.get('v') ?? ''}::uuid as v` }) });
  router.add({ method: 'GET', path: '/private', auth: 'bearer', doc, handler: async (ctx) => ({ status: 200, body: ctx.principal }) });
  router.add({
    method: 'GET', path: '/slow', auth: 'none', doc,
    handler: async (ctx) => {
      signals.push(ctx.signal);
      await new Promise((resolve) => setTimeout(resolve, Number(ctx.query.get('ms') ?? '0')));
      return { status: 200, body: { aborted: ctx.signal.aborted } };
    },
  });
  // 256 MiB if read to the end: far more than the socket buffers between server and client.
  router.add({
    method: 'GET', path: '/stream', auth: 'none', doc,
    handler: async () => {
      async function* source(): AsyncGenerator<Buffer> {
        try {
          for (let i = 0; i < STREAM_CHUNKS; i++) {
            streamed.pulled++;
            yield STREAM_CHUNK;
          }
        } finally {
          streamed.closed = true;
        }
      }
      return { status: 200, stream: { source: source(), contentType: 'application/octet-stream' } };
    },
  });
  const authenticator = {
    authenticate: async (_mode: unknown, headers: Record<string, unknown>) => {
      if (headers.authorization !== 'Bearer good') throw new AppError('UNAUTHORIZED');
      return { tenantId: 7, userId: 1, sessionId: 's', apiKeyId: null };
    },
  };
  server = createHttpServer({ config, log: createLogger('info', (l) => logLines.push(l)), router, authenticator, rateLimits: new RateLimits(config.rateLimits) });
  url = (await server.listen()).url;
});
after(async () => {
  await server.close();
  await db.close();
});

describe('routing', () => {
  test('an unknown path is 404 NOT_FOUND in the error envelope', async () => {
    const res = await call(url, 'GET', '/nowhere');
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(res.body), ['success', 'error']);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  });

  test('a wrong method is 405 with Allow', async () => {
    const res = await call(url, 'DELETE', '/TesteCF/things/1');
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'GET, HEAD');
    assert.equal(res.body.error.code, 'METHOD_NOT_ALLOWED');
    const options = await call(url, 'OPTIONS', '/TesteCF/things');
    assert.equal(options.status, 204);
    assert.equal(options.headers.get('allow'), 'POST');
  });

  test('{env} matches the three environments case-insensitively and nothing else', async () => {
    for (const [given, canonical] of [['TesteCF', 'TesteCF'], ['testecf', 'TesteCF'], ['CERTECF', 'CerteCF'], ['ecf', 'eCF']]) {
      const res = await call(url, 'GET', `/${given}/things/abc%20d`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { env: canonical, id: 'abc d' });
    }
    for (const bad of ['prod', 'TesteCFX', 'api', '%E0%A4%A']) {
      const res = await call(url, 'GET', `/${bad}/things/1`);
      assert.equal(res.status, 404, bad);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
  });
});

describe('request bodies', () => {
  test('malformed JSON is 400 INVALID_JSON', async () => {
    for (const body of ['{bad', '', '{"a":1}}', '\u0000']) {
      const res = await call(url, 'POST', '/TesteCF/things', { body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'INVALID_JSON');
    }
    const invalidUtf8 = await call(url, 'POST', '/TesteCF/things', { body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), headers: { 'content-type': 'application/json' } });
    assert.equal(invalidUtf8.status, 400);
  });

  test('JSON nested deeper than 64 levels is refused with 400', async () => {
    const res = await call(url, 'POST', '/TesteCF/things', { body: '['.repeat(500) + ']'.repeat(500), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'INVALID_JSON');
    // Objects and arrays both count: 64 levels pass, a 65th is refused.
    const nest = (levels: number) => '{"a":['.repeat(levels / 2) + '1' + ']}'.repeat(levels / 2);
    const at64 = await call(url, 'POST', '/TesteCF/things', { body: `[0,[${nest(62)}],{"b":[]}]`, headers: { 'content-type': 'application/json' } });
    assert.equal(at64.status, 201, JSON.stringify(at64.body));
    const at65 = await call(url, 'POST', '/TesteCF/things', { body: `[0,{"b":[]},[[${nest(62)}]]]`, headers: { 'content-type': 'application/json' } });
    assert.equal(at65.status, 400);
  });

  test('a NUL character in any string or key is refused with 400, an escaped backslash before u0000 is not', async () => {
    for (const body of ['{"name":"a\\u0000b"}', '{"a":{"k\\u0000":1}}', '["x",["\\u0000"]]']) {
      const res = await call(url, 'POST', '/TesteCF/things', { body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, body);
      assert.equal(res.body.error.code, 'INVALID_JSON');
      assert.match(res.body.error.message, /U\+0000/);
    }
    const literal = await call(url, 'POST', '/TesteCF/things', { body: '{"name":"a\\\\u0000b"}', headers: { 'content-type': 'application/json' } });
    assert.notEqual(literal.status, 400, 'the text \\u0000 itself (escaped backslash) is an ordinary string');
  });

  test('a lone UTF-16 surrogate in any string or key is refused with 400, a well-formed pair is not', async () => {
    for (const body of ['{"name":"\\ud800x"}', '{"a":{"k\\uDFFF":1}}', '["x",["ok\\uDBFF"]]', '{"pair-reversed":"\\udc00\\ud800"}']) {
      const res = await call(url, 'POST', '/TesteCF/things', { body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, body);
      assert.equal(res.body.error.code, 'INVALID_JSON');
      assert.match(res.body.error.message, /lone UTF-16 surrogate/);
    }
    const pair = await call(url, 'POST', '/TesteCF/things', { body: '{"name":"\\ud83d\\ude00 \\\\ud800"}', headers: { 'content-type': 'application/json' } });
    assert.equal(pair.status, 201, pair.text);
    assert.equal(pair.body.got.name, '\u{1F600} \\ud800', 'a pair is one character; an escaped backslash makes text');
  });

  test('a body over the limit is 413 PAYLOAD_TOO_LARGE, declared or streamed', async () => {
    const big = JSON.stringify({ x: 'y'.repeat(5000) });
    const declared = await call(url, 'POST', '/TesteCF/things', { body: big, headers: { 'content-type': 'application/json' } });
    assert.equal(declared.status, 413);
    assert.equal(declared.body.error.code, 'PAYLOAD_TOO_LARGE');
    const chunked = await rawRequest((server.server.address() as { port: number }).port,
      `POST /TesteCF/things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${(3000).toString(16)}\r\n${'a'.repeat(3000)}\r\n0\r\n\r\n`);
    assert.match(chunked, /^HTTP\/1.1 413/);
    assert.match(chunked, /PAYLOAD_TOO_LARGE/);
  });

  test('a non-JSON content type is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/xml', 'application/json; charset=latin1', '']) {
      const res = await call(url, 'POST', '/TesteCF/things', { body: '{}', headers: type ? { 'content-type': type } : {} });
      assert.equal(res.status, 415, type);
      assert.equal(res.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const ok = await call(url, 'POST', '/TesteCF/things', { body: '{"a":"ñ"}', headers: { 'content-type': 'application/json; charset=UTF-8' } });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body, { got: { a: 'ñ' } });
  });
});

describe('request lifetime', () => {
  test('a client that goes away aborts the request\'s signal; a completed request does not', async () => {
    signals.length = 0;
    await call(url, 'GET', '/slow?ms=0');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(signals[0]?.aborted, false);
    const controller = new AbortController();
    const gone = fetch(`${url}/slow?ms=300`, { signal: controller.signal }).catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    assert.equal(await gone, 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(signals[1]?.aborted, true);
  });

  test('a streamed answer is read from its source only as fast as the client takes it, and a client that leaves closes the source', async () => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.write('GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    let received = 0;
    await new Promise<void>((resolve) => {
      socket.on('data', (d: Buffer) => {
        received += d.length;
        if (received >= 1024 * 1024) {
          socket.pause();
          resolve();
        }
      });
    });
    // The client reads no more: the source is pulled until the buffers on the way are full, then left.
    let seen = -1;
    const stalledAt = await waitFor(async () => {
      const now = streamed.pulled;
      if (now === seen) return now;
      seen = now;
      await new Promise((resolve) => setTimeout(resolve, 250));
      return undefined;
    }, 30_000, 'the source to stop being read');
    assert.ok(stalledAt * STREAM_CHUNK.length < 64 * 1024 * 1024, `${stalledAt} chunks of 64 KiB read for a client that took ${received} bytes`);
    assert.equal(streamed.closed, false);
    socket.destroy();
    await waitFor(() => streamed.closed, 10_000, 'the source to be closed');
    assert.equal(streamed.pulled, stalledAt, 'nothing read after the client left');
  });
});

describe('errors and headers', () => {
  test('an unexpected error is a generic 500 whose details are only in the log, under the request id', async () => {
    const res = await call(url, 'GET', '/boom', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { success: false, error: { code: 'INTERNAL', message: 'Internal server error' } });
    assert.ok(!res.text.includes('hunter2'));
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    assert.equal(line.requestId, 'trace-123');
    assert.match(line.err.message, /secret internals/);
  });

  test('a database outage is 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const res = await call(url, 'GET', '/db-down');
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(res.headers.get('retry-after'), '5');
  });

  test('text PostgreSQL cannot store (U+0000) is a 400 VALIDATION_ERROR, logged as an error to fix at the input', async () => {
    logLines.length = 0;
    const res = await call(url, 'GET', '/echo-text?v=a%00b', { headers: { 'x-request-id': 'nul-1' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.requestId === 'nul-1' && l.level === 'error');
    assert.equal(line?.err.code, '22021');
    assert.equal((await call(url, 'GET', '/echo-text?v=ok')).status, 200);
  });

  test('a failed cast (22P02) stays a 500: it means a missing check, not necessarily bad input', async () => {
    const res = await call(url, 'GET', '/echo-uuid?v=not-a-uuid');
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'INTERNAL');
  });

  test('X-Request-Id is echoed when sane and generated otherwise, on every response', async () => {
    assert.equal((await call(url, 'GET', '/nowhere', { headers: { 'x-request-id': 'abc-1.2:3' } })).headers.get('x-request-id'), 'abc-1.2:3');
    const generated = (await call(url, 'GET', '/TesteCF/things/1', { headers: { 'x-request-id': 'bad id with spaces' } })).headers.get('x-request-id');
    assert.match(generated ?? '', /^[0-9a-f-]{36}$/);
  });

  test('one access-log line per request without credentials', async () => {
    logLines.length = 0;
    await call(url, 'GET', '/private', { headers: { authorization: 'Bearer good', 'x-request-id': 'log-1' } });
    const lines = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.requestId === 'log-1');
    assert.equal(lines.length, 1);
    assert.deepEqual(Object.keys(lines[0]).sort(), ['ip', 'level', 'method', 'ms', 'msg', 'requestId', 'route', 'status', 'tenant', 'time']);
    assert.equal(lines[0].route, '/private');
    assert.equal(lines[0].tenant, 7);
    assert.ok(!logLines.join('').includes('Bearer good'));
  });

  test('a raw reply to malformed HTTP carries an X-Request-Id and gets its access-log line', async () => {
    logLines.length = 0;
    const reply = await rawRequest((server.server.address() as { port: number }).port, 'GARBAGE\r\n\r\n');
    const id = /\r\nx-request-id: ([0-9a-f-]{36})\r\n/.exec(reply)?.[1];
    assert.ok(id !== undefined, reply);
    const lines = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.requestId === id);
    assert.equal(lines.length, 1);
    assert.equal(lines[0].status, 400);
    assert.equal(lines[0].route, '(malformed)');
    assert.equal(lines[0].ip, '127.0.0.1');
  });

  test('a request aborted mid-body is logged as 499 aborted, not as an error or a database outage', async () => {
    logLines.length = 0;
    const port = (server.server.address() as { port: number }).port;
    const socket = connect(port, '127.0.0.1', () => socket.write('POST /TesteCF/things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nX-Request-Id: gone-1\r\n\r\n{"a":'));
    socket.on('error', () => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.resetAndDestroy();
    await waitFor(() => logLines.some((l) => l.includes('"requestId":"gone-1"')));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = logLines.map((l) => JSON.parse(l));
    const access = lines.filter((l) => l.msg === 'request' && l.requestId === 'gone-1');
    assert.equal(access.length, 1);
    assert.equal(access[0].status, 499);
    assert.equal(access[0].aborted, true);
    assert.equal(access[0].route, '/{env}/things');
    assert.deepEqual(lines.filter((l) => l.level !== 'info').map((l) => l.msg), [], 'no warning or error for a client that left');
  });

  test('a body cut short by the client closing its side is answered 400 and logged once under its id', async () => {
    logLines.length = 0;
    const reply = await rawRequest((server.server.address() as { port: number }).port, 'POST /TesteCF/things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nX-Request-Id: short-1\r\n\r\n{"a":', true);
    assert.match(reply, /^HTTP\/1.1 400 /);
    assert.match(reply, /\r\nx-request-id: short-1\r\n/);
    await waitFor(() => logLines.some((l) => l.includes('"requestId":"short-1"')));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = logLines.map((l) => JSON.parse(l));
    assert.deepEqual(lines.filter((l) => l.msg === 'request').map((l) => [l.requestId, l.status]), [['short-1', 400]]);
    assert.deepEqual(lines.filter((l) => l.level !== 'info').map((l) => l.msg), []);
  });

  test('an Expect other than 100-continue is 417 EXPECTATION_FAILED in the envelope', async () => {
    logLines.length = 0;
    const reply = await rawRequest((server.server.address() as { port: number }).port, 'POST /TesteCF/things HTTP/1.1\r\nHost: x\r\nExpect: something\r\nContent-Type: application/json\r\nContent-Length: 2\r\nX-Request-Id: expect-1\r\n\r\n');
    assert.match(reply, /^HTTP\/1.1 417 /);
    assert.match(reply, /\r\nx-request-id: expect-1\r\n/);
    assert.match(reply, /"code":"EXPECTATION_FAILED"/);
    const access = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.requestId === 'expect-1');
    assert.equal(access[0]?.status, 417);
  });

  test('malformed HTTP and oversize headers get an envelope, not a bare socket close', async () => {
    const port = (server.server.address() as { port: number }).port;
    const garbage = await rawRequest(port, 'GARBAGE\r\n\r\n');
    assert.match(garbage, /^HTTP\/1.1 400/);
    assert.match(garbage, /"code":"INVALID_REQUEST"/);
    const huge = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4000)}\r\n\r\n`);
    assert.match(huge, /^HTTP\/1.1 431/);
    assert.match(huge, /"code":"HEADERS_TOO_LARGE"/);
  });

  test('a malformed request line followed by a large upload still gets its answer, not a reset', async () => {
    const port = (server.server.address() as { port: number }).port;
    const bodyBytes = 800_000;
    const head = `PUT /TesteCF/things/=\u0000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`;
    // Cut at once, about one in ten of these lost the 400 to the reset on this path.
    const counts = await uploadFromAnotherThread({ port, head, bodyBytes, requests: 200, concurrency: 8 });
    assert.deepEqual(counts, { 'answered 400': 200 });
  });

  test('a connection answered as malformed is cut within its linger even if the client never stops sending', async () => {
    const port = (server.server.address() as { port: number }).port;
    // Half-open allowed: the client goes on sending after the server's answer and end.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => {});
    let reply = '';
    socket.on('data', (d) => (reply += d.toString('latin1')));
    const started = Date.now();
    socket.write('GARBAGE\r\n\r\n');
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const pump = setInterval(() => { if (!socket.destroyed) socket.write(chunk); }, 5);
    const cut = await new Promise<boolean>((resolve) => {
      socket.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 10_000);
    });
    clearInterval(pump);
    socket.destroy();
    assert.match(reply, /^HTTP\/1.1 400/);
    assert.ok(cut, 'the server cut the connection within 10 s');
    assert.ok(Date.now() - started >= 1_000, `the server read on for a while first (cut after ${Date.now() - started} ms)`);
  });
});

test('a request whose body is too slow gets a raw 408 under its own request id, logged once', async () => {
  const lines: string[] = [];
  // Node answers a body that stalls only once the headers timeout has passed too, so both are short.
  const slowConfig = loadConfig({ PORT: '0', ECF_MASTER_KEY: TEST_MASTER_KEY, HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' });
  const router = new Router();
  router.add({ method: 'POST', path: '/things', auth: 'none', body: 'json', doc: { operationId: 'x', summary: 'x', tags: [], responses: {} }, handler: async () => ({ status: 201, body: {} }) });
  const slow = createHttpServer({ config: slowConfig, log: createLogger('info', (l) => lines.push(l)), router, authenticator: { authenticate: async () => { throw new AppError('UNAUTHORIZED'); } }, rateLimits: new RateLimits(slowConfig.rateLimits) });
  const { port } = await slow.listen();
  try {
    const reply = await rawRequest(port, 'POST /things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\nX-Request-Id: slow-1\r\n\r\n{');
    assert.match(reply, /^HTTP\/1.1 408 /);
    assert.match(reply, /\r\nx-request-id: slow-1\r\n/);
    await waitFor(() => lines.some((l) => l.includes('"requestId":"slow-1"')));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const access = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    assert.equal(access.length, 1, JSON.stringify(access));
    assert.equal(access[0].requestId, 'slow-1');
    assert.equal(access[0].status, 408);
    assert.equal(access[0].route, '/things');
    assert.equal(access[0].aborted, undefined);
  } finally {
    await slow.close();
  }
});

test('a handler that outlasts HTTP_DEADLINE_MS is answered 503 with Retry-After and told to stop; a route waiting on another service gets its extra time', async () => {
  const deadlineConfig = loadConfig({ PORT: '0', ECF_MASTER_KEY: TEST_MASTER_KEY, HTTP_DEADLINE_MS: '1000' });
  const router = new Router();
  const doc = { operationId: 'x', summary: 'x', tags: [], responses: {} };
  let stopped = false;
  router.add({ method: 'GET', path: '/stuck', auth: 'none', doc, handler: (ctx) => new Promise(() => ctx.signal.addEventListener('abort', () => { stopped = true; })) });
  router.add({ method: 'GET', path: '/slow-peer', auth: 'none', doc, extraDeadlineMs: 2000, handler: async () => { await new Promise((r) => setTimeout(r, 1500)); return { status: 200, body: { ok: true } }; } });
  const server = createHttpServer({ config: deadlineConfig, log: createLogger('silent'), router, authenticator: { authenticate: async () => { throw new AppError('UNAUTHORIZED'); } }, rateLimits: new RateLimits(deadlineConfig.rateLimits) });
  const { port } = await server.listen();
  try {
    const stuck = await fetch(`http://127.0.0.1:${port}/stuck`);
    assert.equal(stuck.status, 503);
    assert.equal(stuck.headers.get('retry-after'), '5');
    assert.equal(((await stuck.json()) as { error: { code: string } }).error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(stopped, true, 'the handler\'s signal was aborted');
    const slow = await fetch(`http://127.0.0.1:${port}/slow-peer`);
    assert.equal(slow.status, 200);
  } finally {
    await server.close();
  }
});
