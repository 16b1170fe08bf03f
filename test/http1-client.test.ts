import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { send, TIMEOUT_CODE, type Http1Request } from '../src/lib/http1/client.ts';

// The service's HTTP/1.1 client against real servers on port 0: node:http's, a TLS one, and raw
// sockets where an answer must be one node:http would not write.

type Listening = { url: string; connections: () => number; close: () => Promise<void> };

async function listen(server: Server | net.Server, scheme = 'http'): Promise<Listening> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  server.on(scheme === 'https' ? 'secureConnection' : 'connection', (s: net.Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => req.on('end', () => resolve(Buffer.concat(chunks))));
}

function request(url: string, overrides: Partial<Http1Request> = {}): Promise<Awaited<ReturnType<typeof send>>> {
  return send({ url: new URL(url), pool: 'test', method: 'GET', headers: {}, timeoutMs: 5_000, keepBytes: 1024, maxBytes: 1024 * 1024, ...overrides });
}

/** A server that writes `answer` (raw bytes) to each request it reads a head of. */
function rawServer(answer: (n: number) => string, end = false): net.Server {
  let n = 0;
  return net.createServer((socket) => {
    let seen = '';
    socket.on('data', (d: Buffer) => {
      seen += d.toString('latin1');
      while (seen.includes('\r\n\r\n')) {
        seen = seen.slice(seen.indexOf('\r\n\r\n') + 4);
        socket.write(answer(n++));
        if (end) socket.end();
      }
    });
  });
}

const opened: Listening[] = [];
after(async () => {
  for (const l of opened) await l.close();
});

describe('HTTP/1.1 client', () => {
  it('sends the exact body with its length and keeps one connection alive for the next requests', async () => {
    const bodies: string[] = [];
    const s = await listen(createServer(async (req, res) => {
      bodies.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers['content-length'] ?? '-'} ${req.headers['x-one'] ?? ''} ${(await bodyOf(req)).toString('utf8')}`);
      res.end(`ok ${bodies.length}`);
    }));
    opened.push(s);
    const text = 'día: ñandú €';
    const first = await request(`${s.url}/a?b=c`, { method: 'POST', headers: { 'x-one': '1' }, body: text });
    const second = await request(`${s.url}/b`, { method: 'POST', body: Buffer.from('bytes') });
    const third = await request(`${s.url}/c`);
    assert.deepEqual([first.body.toString(), second.body.toString(), third.body.toString()], ['ok 1', 'ok 2', 'ok 3']);
    assert.deepEqual(bodies, [`POST /a?b=c ${Buffer.byteLength(text)} 1 ${text}`, 'POST /b 5  bytes', 'GET /c -  ']);
    assert.equal(s.connections(), 1);
  });

  it('does not reuse a connection after Connection: close, after bytes beyond the answer, or after HTTP/1.0', async () => {
    for (const answer of [
      'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n',
      'HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok',
    ]) {
      const s = await listen(rawServer(() => answer));
      opened.push(s);
      assert.equal((await request(`${s.url}/`)).status, 200);
      assert.equal((await request(`${s.url}/`)).status, 200);
      assert.equal(s.connections(), 2, answer);
    }
  });

  it('reads an answer framed by the connection\'s end, and a chunked one', async () => {
    const closed = await listen(rawServer(() => 'HTTP/1.1 200 OK\r\n\r\nuntil the end', true));
    const chunked = await listen(rawServer(() => 'HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n'));
    opened.push(closed, chunked);
    assert.equal((await request(`${closed.url}/`)).body.toString(), 'until the end');
    const a = await request(`${chunked.url}/`);
    const b = await request(`${chunked.url}/`);
    assert.deepEqual([a.status, a.body.toString(), b.body.toString()], [201, 'hello world', 'hello world']);
    assert.equal(chunked.connections(), 1);
  });

  it('opens a new connection when the server closed the idle one', async () => {
    // As a server whose keep-alive timeout ran out: it closes the connection 50 ms after answering.
    const s = await listen(net.createServer((socket) => socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
      setTimeout(() => socket.end(), 50);
    })));
    opened.push(s);
    await request(`${s.url}/`);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await request(`${s.url}/`)).body.toString(), 'ok');
    assert.equal(s.connections(), 2);
  });

  it('keeps the connections of one pool from another', async () => {
    const s = await listen(createServer((_req, res) => res.end('ok')));
    opened.push(s);
    await request(`${s.url}/`, { pool: 'one' });
    await request(`${s.url}/`, { pool: 'two' });
    await request(`${s.url}/`, { pool: 'one' });
    assert.equal(s.connections(), 2);
  });

  it('fails with its own code when no whole answer comes in time, and closes that connection', async () => {
    const s = await listen(rawServer(() => 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf'));
    opened.push(s);
    const started = Date.now();
    await assert.rejects(request(`${s.url}/`, { timeoutMs: 200 }), (err: Error & { code?: string }) => err.code === TIMEOUT_CODE);
    assert.ok(Date.now() - started < 2_000);
    await assert.rejects(request(`${s.url}/`, { timeoutMs: 200 }), (err: Error & { code?: string }) => err.code === TIMEOUT_CODE);
    assert.equal(s.connections(), 2);
  });

  it('stops when its signal is aborted', async () => {
    const s = await listen(rawServer(() => ''));
    opened.push(s);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await assert.rejects(request(`${s.url}/`, { signal: controller.signal }), (err: Error & { code?: string }) => err.code === 'ABORT_ERR');
  });

  it('fails with ECONNRESET when the connection ends mid-answer, and EHTTPPARSE on an answer that is not HTTP/1.1', async () => {
    const cut = await listen(rawServer(() => 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf', true));
    const bad = await listen(rawServer(() => 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n'));
    opened.push(cut, bad);
    await assert.rejects(request(`${cut.url}/`), (err: Error & { code?: string }) => err.code === 'ECONNRESET');
    await assert.rejects(request(`${bad.url}/`), (err: Error & { code?: string }) => err.code === 'EHTTPPARSE');
  });

  it('reads no further than maxBytes: a larger Content-Length is not read, a longer body is cut, and its first keepBytes kept', async () => {
    let bodySent = false;
    const declared = await listen(net.createServer((socket) => socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5000000\r\n\r\n');
      setTimeout(() => {
        bodySent = true;
        socket.write('x'.repeat(1000));
      }, 300);
    })));
    const endless = await listen(net.createServer((socket) => socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\n\r\n');
      const more = (): void => void (socket.destroyed || socket.write('y'.repeat(4096), () => setImmediate(more)));
      more();
    })));
    opened.push(declared, endless);
    const a = await request(`${declared.url}/`, { maxBytes: 1000 });
    assert.deepEqual([a.truncated, a.body.length, bodySent], [true, 0, false]);
    const b = await request(`${endless.url}/`, { maxBytes: 100_000, keepBytes: 10 });
    assert.deepEqual([b.truncated, b.body.toString()], [true, 'yyyyyyyyyy']);
  });

  it('refuses a header that would break the head, before connecting', async () => {
    const s = await listen(createServer((_req, res) => res.end('ok')));
    opened.push(s);
    await assert.rejects(request(`${s.url}/`, { headers: { 'x-a': 'b\r\nx-injected: 1' } }), TypeError);
    await assert.rejects(request(`${s.url}/`, { headers: { 'content-length': '3' } }), TypeError);
    await assert.rejects(request(`${s.url}/`, { headers: { 'bad name': 'x' } }), TypeError);
    assert.equal(s.connections(), 0);
  });

  it('speaks TLS, verifying the server\'s certificate against the trusted ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'http1-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    const cert = readFileSync(join(dir, 'cert.pem'));
    const s = await listen(createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (_req, res) => res.end('secret')), 'https');
    opened.push(s);
    const port = new URL(s.url).port;
    for (const host of ['127.0.0.1', 'localhost']) {
      const answer = await request(`https://${host}:${port}/`, { tls: { ca: cert }, pool: `tls ${host}` });
      assert.equal(answer.body.toString(), 'secret');
    }
    await request(`https://localhost:${port}/`, { tls: { ca: cert }, pool: 'tls localhost' });
    assert.equal(s.connections(), 2);
    await assert.rejects(request(`https://localhost:${port}/`, { pool: 'tls untrusted' }), (err: Error & { code?: string }) => err.code === 'DEPTH_ZERO_SELF_SIGNED_CERT');
  });
});
