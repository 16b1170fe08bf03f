import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../src/idempotency/canonical.ts';
import { call, newTenant } from './helpers/http.ts';
import { ecfFor, FAST_PIPELINE } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, WORKERS_ENABLED: 'false', IDEMPOTENCY_LEASE_SECONDS: '1' } });
});
after(() => t.close());

const emit = (key: string | undefined, apiKey: string, body: unknown, env = 'TesteCF') =>
  call(t.url, 'POST', `/${env}/documentos-ecf`, { json: body, headers: { 'x-api-key': apiKey, ...(key === undefined ? {} : { 'idempotency-key': key }) } });

async function documentCount(tenantId: number): Promise<number> {
  const [row] = await t.sql<{ n: number }[]>`select count(*)::int as n from documents where tenant_id = ${tenantId}`;
  return row?.n ?? -1;
}

describe('Idempotency-Key', () => {
  test('the same key and body replays the stored answer with Idempotent-Replayed: true', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc);
    const first = await emit('order-1001', a.apiKey, body);
    assert.equal(first.status, 202);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    // Key order does not matter: the fingerprint is over canonical JSON.
    const reordered = JSON.parse(canonicalJson(body));
    const second = await emit('order-1001', a.apiKey, reordered);
    assert.equal(second.status, 202);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.text, first.text);
    assert.equal(second.headers.get('location'), first.headers.get('location'));
    assert.equal(await documentCount(a.tenantId), 1);
  });

  test('the same key with a different body is 409 IDEMPOTENCY_KEY_CONFLICT', async () => {
    const a = await newTenant(t.url);
    await emit('k-1', a.apiKey, ecfFor(a.rnc, 31));
    const res = await emit('k-1', a.apiKey, ecfFor(a.rnc, 32));
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'IDEMPOTENCY_KEY_CONFLICT');
    assert.equal(await documentCount(a.tenantId), 1);
  });

  test('a validation failure is stored and replayed too', async () => {
    const a = await newTenant(t.url);
    const first = await emit('bad-1', a.apiKey, { ECF: {} });
    assert.equal(first.status, 422);
    const second = await emit('bad-1', a.apiKey, { ECF: {} });
    assert.equal(second.status, 422);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.text, first.text);
  });

  test('100 concurrent requests with one key make exactly one document; the rest replay or get IN_USE', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc);
    const results = await Promise.all(Array.from({ length: 100 }, () => emit('burst', a.apiKey, body)));
    const created = results.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === null);
    const replays = results.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === 'true');
    const inUse = results.filter((r) => r.status === 409);
    assert.equal(created.length, 1);
    assert.equal(replays.length + inUse.length, 99);
    for (const r of inUse) {
      assert.equal(r.body.error.code, 'IDEMPOTENCY_KEY_IN_USE');
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
    }
    for (const r of replays) assert.equal(r.body.data.internalTrackId, created[0]?.body.data.internalTrackId);
    assert.equal(await documentCount(a.tenantId), 1);
  });

  test('a key is independent across tenants and environments', async () => {
    const a = await newTenant(t.url);
    const b = await newTenant(t.url);
    const ra = await emit('shared', a.apiKey, ecfFor(a.rnc));
    const rb = await emit('shared', b.apiKey, ecfFor(b.rnc));
    const re = await emit('shared', a.apiKey, ecfFor(a.rnc), 'CerteCF');
    for (const r of [ra, rb, re]) {
      assert.equal(r.status, 202);
      assert.equal(r.headers.get('idempotent-replayed'), null);
    }
    assert.equal(await documentCount(a.tenantId), 2);
  });

  test('a key outside 1–255 printable ASCII characters is 400 VALIDATION_ERROR', async () => {
    const a = await newTenant(t.url);
    for (const key of ['x'.repeat(256), 'ñandú', 'tab\there']) {
      const res = await emit(key, a.apiKey, ecfFor(a.rnc));
      assert.equal(res.status, 400, key);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
    assert.equal((await emit('x'.repeat(255), a.apiKey, ecfFor(a.rnc))).status, 202);
  });

  test('a key held by a request that died is taken over after its lease', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc);
    // What a crash leaves: a running claim with this request's fingerprint and no response.
    const { requestFingerprint } = await import('../src/idempotency/canonical.ts');
    const fingerprint = requestFingerprint('POST', '/{env}/documentos-ecf', JSON.parse(JSON.stringify(body)), Buffer.alloc(0));
    await t.sql`
      insert into idempotency_keys (tenant_id, environment, key, fingerprint, state, locked_until, expires_at)
      values (${a.tenantId}, 'TesteCF', 'crashed', ${fingerprint}, 'running', now() + interval '1 second', now() + interval '1 day')`;
    const during = await emit('crashed', a.apiKey, body);
    assert.equal(during.status, 409);
    assert.equal(during.body.error.code, 'IDEMPOTENCY_KEY_IN_USE');
    await new Promise((r) => setTimeout(r, 1100));
    const afterLease = await emit('crashed', a.apiKey, body);
    assert.equal(afterLease.status, 202);
    assert.equal(afterLease.headers.get('idempotent-replayed'), null);
  });

  test('expired records are purged, and the key can be used again', async () => {
    const a = await newTenant(t.url);
    await emit('old', a.apiKey, ecfFor(a.rnc));
    await t.sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'old'`;
    const { purgeExpiredKeys } = await import('../src/idempotency/queries.ts');
    assert.ok((await purgeExpiredKeys(t.sql, 100)) >= 1);
    const [row] = await t.sql`select count(*)::int as n from idempotency_keys where key = 'old'`;
    assert.equal(row?.n, 0);
    const again = await emit('old', a.apiKey, ecfFor(a.rnc, 32));
    assert.equal(again.status, 202);
    assert.equal(again.headers.get('idempotent-replayed'), null);
  });
});
