import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../src/webhooks/sender.ts';

// The sender writes the body as a string with its headers; the receiver must get exactly the
// UTF-8 bytes that were signed, with a content-length that counts bytes, not characters.

test('postWebhook sends the body as its exact UTF-8 bytes, with a content-length in bytes', async () => {
  const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const body = JSON.stringify({ event: 'ecf.status_update', razonSocial: 'Ñoño & Cía, S.R.L. — café 😀', nota: 'ü'.repeat(3000) });
    for (let i = 0; i < 2; i++) {
      const result = await postWebhook(`http://127.0.0.1:${port}/hooks/ecf`, body, { 'content-type': 'application/json' }, { timeoutMs: 2000, allowPrivate: true });
      assert.equal(result.ok, true, result.error ?? '');
    }
    assert.equal(received.length, 2);
    for (const r of received) {
      assert.ok(r.body.equals(Buffer.from(body, 'utf8')), 'the bytes received are the UTF-8 bytes of the body');
      assert.equal(r.headers['content-length'], String(Buffer.byteLength(body, 'utf8')));
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
