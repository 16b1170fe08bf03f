import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { postWebhook } from '../src/webhooks/sender.ts';
import { forbiddenReason, guardedLookup, hostReason, type Resolver } from '../src/lib/egress-guard.ts';
import { client, newTenant } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';

const FORBIDDEN: [string, RegExp][] = [
  ['127.0.0.1', /loopback/], ['127.255.0.9', /loopback/], ['::1', /loopback/],
  ['10.0.0.1', /private/], ['172.16.5.4', /private/], ['192.168.0.10', /private/], ['fd00::1', /unique local/],
  ['169.254.169.254', /link-local/], ['fe80::1', /link-local/],
  ['100.64.0.1', /CGNAT/], ['100.127.255.254', /CGNAT/],
  ['224.0.0.251', /multicast/], ['ff02::1', /multicast/],
  ['0.0.0.0', /unspecified/], ['::', /unspecified/],
  ['192.0.2.1', /documentation/], ['198.51.100.1', /documentation/], ['203.0.113.9', /documentation/], ['2001:db8::1', /documentation/],
  ['240.0.0.1', /reserved/], ['255.255.255.255', /reserved/], ['198.18.0.1', /benchmarking/],
  ['::ffff:127.0.0.1', /loopback/], ['::ffff:7f00:1', /loopback/], ['::ffff:10.1.1.1', /private/], ['::ffff:a9fe:a9fe', /link-local/],
  ['64:ff9b::7f00:1', /NAT64/], ['2002:7f00:1::', /6to4/],
  // IPv4-compatible (::/96), SRv6 SIDs (5f00::/16) and the dummy prefix (100:0:0:1::/64),
  // each at its first and last address, and with a public IPv4 address embedded.
  ['::2', /IPv4-compatible/], ['::7f00:1', /IPv4-compatible/], ['::8.8.8.8', /IPv4-compatible/], ['::ffff:ffff', /IPv4-compatible/],
  ['5f00::', /SRv6/], ['5f00:1234::1', /SRv6/], ['5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', /SRv6/],
  ['100:0:0:1::', /dummy prefix/], ['100:0:0:1:ffff:ffff:ffff:ffff', /dummy prefix/],
];

describe('address classification', () => {
  test('every forbidden class is refused, IPv4-mapped IPv6 included', () => {
    for (const [address, label] of FORBIDDEN) {
      const reason = forbiddenReason(address);
      assert.ok(reason !== null, `${address} should be refused`);
      assert.match(reason, label, address);
    }
  });

  test('public addresses are allowed', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(forbiddenReason(address), null, address);
    }
  });

  test('a URL host is judged as an IP literal, or by every address its name resolves to; a name that does not resolve is left to delivery', async () => {
    const answers: Record<string, { address: string; family: number }[]> = {
      'intranet.example': [{ address: '10.1.2.3', family: 4 }],
      'mixed.example': [{ address: '93.184.215.14', family: 4 }, { address: 'fd00::7', family: 6 }],
      'public.example': [{ address: '93.184.215.14', family: 4 }, { address: '2606:4700:4700::1111', family: 6 }],
    };
    const asked: string[] = [];
    const resolve: Resolver = (hostname, _options, callback) => {
      asked.push(hostname);
      const found = answers[hostname];
      if (found === undefined) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      else callback(null, found);
    };
    assert.equal(await hostReason('intranet.example', resolve), 'intranet.example resolves to 10.1.2.3 is private (RFC 1918) (10.0.0.0/8)');
    assert.match(String(await hostReason('mixed.example', resolve)), /^mixed\.example resolves to fd00::7 is unique local/);
    assert.equal(await hostReason('public.example', resolve), null);
    assert.equal(await hostReason('nowhere.example', resolve), null);
    assert.match(String(await hostReason('[::1]', resolve)), /loopback/);
    assert.equal(await hostReason('8.8.8.8', resolve), null);
    assert.deepEqual(asked, ['intranet.example', 'mixed.example', 'public.example', 'nowhere.example'], 'IP literals are not looked up');
    assert.match(String(await hostReason('localhost')), /^localhost resolves to .*loopback/);
  });

  test('the guarded lookup refuses a name that resolves to loopback and hands back the checked address otherwise', async () => {
    const refused = await new Promise<Error | null>((resolve) => guardedLookup(false)('localhost', {}, (err) => resolve(err)));
    assert.match(String(refused?.message), /refused destination: localhost resolves to .*loopback/);
    const allowed = await new Promise<string>((resolve, reject) => guardedLookup(true)('localhost', { family: 4 }, (err, address) => (err ? reject(err) : resolve(address as string))));
    assert.equal(allowed, '127.0.0.1');
  });

  test('localhost names are loopback however spelt, before any lookup, at PUT and at delivery alike', async () => {
    const resolver: Resolver = (_host, _options, callback) => callback(null, [{ address: '93.184.216.34', family: 4 }]);
    for (const name of ['LOCALHOST.', 'localhost..', 'Api.Localhost', 'api.localhost.']) {
      assert.match(String(await hostReason(name, resolver)), /resolves to a loopback address by definition/, name);
      const refused = await new Promise<Error | null>((resolve) => guardedLookup(false, resolver)(name, {}, (err) => resolve(err)));
      assert.match(String(refused?.message), /^.*refused destination: .* resolves to a loopback address/, name);
    }
    assert.equal(await hostReason('localhost.example.com', resolver), null, 'only the localhost names themselves');
  });
});

describe('connect-time pinning', () => {
  test('the socket dials the address the guard checked, and the name is never looked up a second time', async () => {
    const checked = await startReceiver();
    const port = Number(new URL(checked.url).port);
    // Where a second lookup would lead: a rebinding DNS answers another address the next time.
    const rebound: string[] = [];
    const elsewhere = createServer((req, res) => {
      rebound.push(req.url ?? '');
      res.end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(port, '127.0.0.2', resolve));
    const lookups: string[] = [];
    const rebinding: Resolver = (hostname, _options, callback) => {
      lookups.push(hostname);
      callback(null, [{ address: lookups.length === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }]);
    };
    try {
      const result = await postWebhook(`http://rebinding.example:${port}/hooks/ecf`, '{"event":"webhook.test"}', { 'content-type': 'application/json' }, { timeoutMs: 2000, allowPrivate: true, resolve: rebinding });
      assert.equal(result.ok, true, String(result.error));
      assert.deepEqual(lookups, ['rebinding.example']);
      assert.equal(checked.received.length, 1);
      assert.equal(checked.received[0]?.headers.host, `rebinding.example:${port}`);
      assert.deepEqual(rebound, []);
    } finally {
      await checked.close();
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });

  test('a name with a public and a private address is refused before any connection', async () => {
    const r = await startReceiver();
    const port = new URL(r.url).port;
    const resolve: Resolver = (_hostname, _options, callback) => callback(null, [{ address: '93.184.215.14', family: 4 }, { address: '127.0.0.1', family: 4 }]);
    try {
      const result = await postWebhook(`http://mixed.example:${port}/hooks/ecf`, '{}', {}, { timeoutMs: 2000, allowPrivate: false, resolve });
      assert.equal(result.ok, false);
      assert.equal(result.error, 'refused destination: mixed.example resolves to 127.0.0.1 is loopback (127.0.0.0/8)');
      assert.equal(r.received.length, 0);
    } finally {
      await r.close();
    }
  });
});

describe('webhooks without private networks', () => {
  let t: TestService;
  let r: Receiver;
  before(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
    r = await startReceiver();
  });
  after(async () => {
    await r.close();
    await t.close();
  });

  test('PUT settings refuses URLs whose literal host is forbidden, naming the setting that allows them', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    for (const url of ['http://127.0.0.1:8080/x', 'http://[::1]/x', 'http://[::ffff:127.0.0.1]/x', 'http://10.0.0.5/x', 'http://169.254.169.254/latest/meta-data', 'https://100.64.1.1/', 'http://0.0.0.0/', 'http://[fe80::1]/', 'http://[::7f00:1]/x', 'https://[5f00::1]/', 'https://[100:0:0:1::1]/']) {
      const res = await api.put('/api/webhooks/settings', { json: { webhookUrl: url } });
      assert.equal(res.status, 422, url);
      assert.match(res.body.error.details[0].message, /is not reachable from this service: .* is .*; such destinations are refused while WEBHOOK_ALLOW_PRIVATE_NETWORKS is false$/);
    }
    assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: 'https://hooks.example.com/ecf' } })).status, 200);
  });

  test('PUT settings refuses a host name that resolves to a forbidden address', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    // LOCALHOST. (trailing dot) may not resolve here at all, yet is loopback wherever it does (issue 28, item 14).
    for (const url of [r.url.replace('127.0.0.1', 'localhost'), 'https://LOCALHOST/hooks', 'http://LOCALHOST./', 'http://localhost../x', 'https://api.localhost/hooks', 'https://API.LOCALHOST./hooks']) {
      const res = await api.put('/api/webhooks/settings', { json: { webhookUrl: url } });
      assert.equal(res.status, 422, url);
      assert.equal(res.body.error.details[0].path, 'webhookUrl');
      assert.match(res.body.error.details[0].message, /^is not reachable from this service: (api\.)?localhost\.* resolves to .*loopback.*WEBHOOK_ALLOW_PRIVATE_NETWORKS/);
    }
    assert.equal((await api.get('/api/webhooks/settings')).body.data.webhookUrl, null, 'nothing was stored');
  });

  test('a host name that resolves to a forbidden address is refused at connect time and recorded', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    // Stored while the name still resolved elsewhere, or while private networks were allowed.
    assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: 'https://hooks.example.com/ecf' } })).status, 200);
    await t.sql`update webhook_settings set url = ${r.url.replace('127.0.0.1', 'localhost')} where tenant_id = ${a.tenantId}`;
    const res = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.attempt.ok, false);
    assert.match(res.body.data.attempt.error, /^refused destination: localhost resolves to .* loopback/);
    assert.equal(res.body.data.delivery.status, 'pending');
    assert.equal(r.received.length, 0, 'nothing reached the loopback receiver');
  });

  test('a stored URL whose literal host is private is refused at send time and recorded', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: 'https://hooks.example.com/ecf' } })).status, 200);
    // Stored before the rule existed, or while private networks were allowed.
    await t.sql`update webhook_settings set url = ${r.url} where tenant_id = ${a.tenantId}`;
    const res = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.attempt.ok, false);
    assert.equal(res.body.data.attempt.error, 'refused destination: 127.0.0.1 is loopback (127.0.0.0/8)');
    const d = await api.get(`/api/webhooks/deliveries/${res.body.data.delivery.id}`);
    assert.deepEqual(d.body.data.attempts.map((x: { url: string; error: string }) => [x.url, x.error]), [[r.url, 'refused destination: 127.0.0.1 is loopback (127.0.0.0/8)']]);
    assert.equal(r.received.length, 0);
  });
});
