import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { call, client, newTenant } from './helpers/http.ts';
import { startReceiver, verifySignature, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// Standard Webhooks signatures checked by the `standardwebhooks` library as published, secret
// rotation with its overlap, and the verification snippets of docs/webhooks.md (read from that
// file, so the documentation is what runs) against real deliveries.

const DOC = readFileSync(new URL('../docs/webhooks.md', import.meta.url), 'utf8');

/** The body of the fenced block whose info string is exactly `info`. */
function snippet(info: string): string {
  const m = new RegExp('```' + info.replace(/ /g, ' ') + '\\n([\\s\\S]*?)\\n```').exec(DOC);
  assert.ok(m?.[1] !== undefined, `docs/webhooks.md has a \`\`\`${info} block`);
  return m[1];
}

let t: TestService;
const receivers: Receiver[] = [];
const dir = mkdtempSync(join(tmpdir(), 'ecf-webhook-snippets-'));
before(async () => {
  t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' } });
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

async function tenantWithReceiver() {
  const a = await newTenant(t.url);
  const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
  const r = await startReceiver();
  receivers.push(r);
  const put = await api.put('/api/webhooks/settings', { json: { webhookUrl: r.url, generate: true } });
  assert.equal(put.status, 200, put.text);
  return { a, api, r, secret: put.body.data.webhookSecret as string };
}

function headersOf(r: Receiver['received'][number]): Record<string, string> {
  return Object.fromEntries(Object.entries(r.headers).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

describe('Standard Webhooks', () => {
  test('a delivery carries webhook-id, webhook-timestamp and a v1 signature the standardwebhooks package verifies unchanged', async () => {
    const { api, r, secret } = await tenantWithReceiver();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const sent = await api.post('/api/webhooks/test');
    assert.equal(sent.status, 200, sent.text);
    const got = await waitFor(async () => r.received[0]);
    const h = headersOf(got);
    assert.equal(h['webhook-id'], sent.body.data.delivery.id);
    assert.equal(h['webhook-id'], h['x-ecf-delivery-id']);
    assert.ok(Math.abs(Number(h['webhook-timestamp']) - Date.now() / 1000) < 60);
    assert.match(h['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]+=*$/);
    const payload = new Webhook(secret).verify(got.raw.toString('utf8'), h) as { event: string };
    assert.equal(payload.event, 'webhook.test');
    // GitHub-style receivers keep working.
    assert.equal(verifySignature(secret, got.raw, h['x-ecf-signature']), true);
    // A changed body or another secret fails.
    assert.throws(() => new Webhook(secret).verify(got.raw.toString('utf8').replace('webhook.test', 'webhook.tesT'), h));
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.raw.toString('utf8'), h));
  });

  test('a rotation keeps the previous secret signing during the overlap: both signatures in both headers, newest first', async () => {
    const { a, api, r, secret: old } = await tenantWithReceiver();
    const rotated = await api.post('/api/webhooks/settings/rotate-secret');
    assert.equal(rotated.status, 200, rotated.text);
    const fresh = rotated.body.data.webhookSecret as string;
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, old);
    const expires = Date.parse(rotated.body.data.previousSecretExpiresAt);
    assert.ok(Math.abs(expires - (Date.now() + 24 * 3_600_000)) < 60_000, 'the default overlap is 24 h');
    assert.equal((await api.get('/api/webhooks/settings')).body.data.previousSecretExpiresAt, rotated.body.data.previousSecretExpiresAt);

    await api.post('/api/webhooks/test');
    const during = headersOf(await waitFor(async () => r.received[0]));
    const body = r.received[0]?.raw as Buffer;
    assert.equal((during['webhook-signature'] ?? '').split(' ').length, 2);
    for (const s of [fresh, old]) assert.doesNotThrow(() => new Webhook(s).verify(body.toString('utf8'), during));
    const [first, second] = (during['x-ecf-signature'] ?? '').split(', ');
    assert.equal(verifySignature(fresh, body, first), true, 'the new secret signs first');
    assert.equal(verifySignature(old, body, second), true);

    // When the overlap is over, only the new secret signs.
    await t.sql`update webhook_settings set previous_secret_expires_at = now() - interval '1 second' where tenant_id = ${a.tenantId}`;
    assert.equal((await api.get('/api/webhooks/settings')).body.data.previousSecretExpiresAt, null);
    await api.post('/api/webhooks/test');
    const afterwards = headersOf(await waitFor(async () => r.received[1]));
    const body2 = r.received[1]?.raw as Buffer;
    assert.equal((afterwards['webhook-signature'] ?? '').split(' ').length, 1);
    assert.doesNotThrow(() => new Webhook(fresh).verify(body2.toString('utf8'), afterwards));
    assert.throws(() => new Webhook(old).verify(body2.toString('utf8'), afterwards));
    assert.equal(verifySignature(fresh, body2, afterwards['x-ecf-signature']), true);
  });

  test('rotation without a secret is 409, and bad secrets are 422', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    const none = await api.post('/api/webhooks/settings/rotate-secret');
    assert.equal(none.status, 409);
    assert.equal(none.body.error.code, 'CONFLICT');
    assert.match(none.body.error.message, /No webhook secret is set/);
    await api.put('/api/webhooks/settings', { json: { webhookSecret: 'a-long-enough-plain-secret' } });
    for (const webhookSecret of ['whsec_not*base64!!!!!!', `whsec_${Buffer.alloc(8).toString('base64')}`, 'short']) {
      const bad = await api.post('/api/webhooks/settings/rotate-secret', { json: { webhookSecret } });
      assert.equal(bad.status, 422, webhookSecret);
      assert.equal(bad.body.error.details[0].path, 'webhookSecret');
      assert.equal((await api.put('/api/webhooks/settings', { json: { webhookSecret } })).status, 422);
    }
    assert.equal((await api.post('/api/webhooks/settings/rotate-secret', { json: { extra: 1 } })).status, 422);
    const chosen = await api.post('/api/webhooks/settings/rotate-secret', { json: { webhookSecret: `whsec_${Buffer.alloc(24, 1).toString('base64')}` } });
    assert.equal(chosen.status, 200, chosen.text);
    assert.equal(chosen.body.data.webhookSecret, undefined, 'a chosen secret is not echoed');
  });

  test('a secret that is not in the whsec_ form keys Standard Webhooks with its UTF-8 bytes', async () => {
    const { api, r } = await tenantWithReceiver();
    const plain = 'my-own-plain-secret-value';
    await api.put('/api/webhooks/settings', { json: { webhookSecret: plain } });
    await api.post('/api/webhooks/test');
    const got = await waitFor(async () => r.received[0]);
    assert.doesNotThrow(() => new Webhook(Buffer.from(plain, 'utf8'), { format: 'raw' }).verify(got.raw.toString('utf8'), headersOf(got)));
    assert.equal(verifySignature(plain, got.raw, headersOf(got)['x-ecf-signature']), true);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

const SNIPPETS = [
  { name: 'Node.js', info: 'js node', file: 'receiver.cjs', command: (f: string) => [process.execPath, f] },
  { name: 'Python', info: 'python', file: 'receiver.py', command: (f: string) => ['python3', '-u', f] },
  { name: 'PHP', info: 'php', file: 'receiver.php', command: (f: string, port: number) => ['php', '-S', `127.0.0.1:${port}`, f] },
] as const;

describe('verification snippets of docs/webhooks.md', () => {
  for (const s of SNIPPETS) {
    test(`the ${s.name} snippet accepts a real delivery, also during a rotation, and refuses a forged one`, async () => {
      const { api, secret } = await tenantWithReceiver();
      const port = await freePort();
      const file = join(dir, s.file);
      writeFileSync(file, snippet(s.info));
      const [cmd, ...args] = s.command(file, port);
      let output = '';
      const child: ChildProcess = spawn(cmd as string, args, { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout?.on('data', (c: Buffer) => { output += c.toString(); });
      child.stderr?.on('data', (c: Buffer) => { output += c.toString(); });
      try {
        await waitFor(async () => (await listening(port)) || undefined, 15_000, `${s.name} receiver listening`);
        const url = `http://127.0.0.1:${port}/hooks/ecf`;
        assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: url } })).status, 200);
        const sent = await api.post('/api/webhooks/test');
        assert.equal(sent.body.data.attempt.statusCode, 204, `${s.name}: ${sent.text} ${output}`);
        // During an overlap the receiver still holding the old secret accepts the delivery.
        assert.equal((await api.post('/api/webhooks/settings/rotate-secret')).status, 200);
        const during = await api.post('/api/webhooks/test');
        assert.equal(during.body.data.attempt.statusCode, 204, `${s.name} during rotation: ${output}`);
        await waitFor(async () => (output.match(/verified webhook\.test/g)?.length ?? 0) >= 2 || undefined, 10_000, 'the snippet logs what it verified');
        // A forged delivery (signature of another key) and a stale one are refused.
        const body = '{"event":"webhook.test"}';
        const forged = await call(url.replace('/hooks/ecf', '/x'), 'POST', '', {
          body, headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' },
        });
        assert.equal(forged.status, 401, `${s.name} forged`);
        const stale = await call(url.replace('/hooks/ecf', '/x'), 'POST', '', { body, headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': '1000000000', 'webhook-signature': 'v1,x' } });
        assert.equal(stale.status, 401, `${s.name} stale`);
      } finally {
        if (child.pid !== undefined) child.kill('SIGTERM');
      }
    });
  }
});
