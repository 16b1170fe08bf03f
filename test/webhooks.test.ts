import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, client, newTenant } from './helpers/http.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { makeTestCertificate, uploadCertificate } from './helpers/certificates.ts';
import { startTestService, TEST_MASTER_KEY, type TestService } from './helpers/service.ts';
import { loadConfig } from '../src/config.ts';
import { deriveKeys } from '../src/crypto/master-key.ts';
import { EventOutbox } from '../src/events/outbox.ts';
import { createLogger } from '../src/log.ts';
import { DeliveryEngine } from '../src/webhooks/delivery.ts';
import { WebhookSettings } from '../src/webhooks/settings.ts';
import { watchStatements } from './helpers/statements.ts';
import { waitFor } from './helpers/wait.ts';

/** ISO 8601 in UTC with milliseconds, as the specification's payloads carry. */
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let t: TestService;
const receivers: Receiver[] = [];
before(async () => {
  t = await startTestService({
    env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_DELAYS_MS: '50,50,50,50,50' },
    captureLog: true,
  });
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

async function receiver(options: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> {
  const r = await startReceiver(options);
  receivers.push(r);
  return r;
}

async function tenantWithWebhook(options: Parameters<typeof startReceiver>[0] & { withSecret?: boolean } = {}) {
  const a = await newTenant(t.url);
  const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
  let secret: string | undefined;
  if (options.withSecret !== false) {
    const gen = await api.put('/api/webhooks/settings', { json: { generate: true } });
    secret = gen.body.data.webhookSecret;
  }
  const r = await receiver({ ...options, ...(secret === undefined ? {} : { secret }) });
  const put = await api.put('/api/webhooks/settings', { json: { webhookUrl: r.url } });
  assert.equal(put.status, 200, put.text);
  return { a, api, r, secret };
}

describe('settings', () => {
  test('a generated secret is shown once, stored sealed, and never returned again', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    assert.deepEqual((await api.get('/api/webhooks/settings')).body.data, { webhookUrl: null, secretConfigured: false, updatedAt: null, previousSecretExpiresAt: null });
    const gen = await api.put('/api/webhooks/settings', { json: { webhookUrl: 'https://erp.example.com/hooks', generate: true } });
    assert.equal(gen.status, 200);
    const secret = gen.body.data.webhookSecret as string;
    // Standard Webhooks form: whsec_ and the base64 of 32 random bytes.
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = await api.get('/api/webhooks/settings');
    assert.equal(got.body.data.secretConfigured, true);
    assert.equal(got.body.data.webhookUrl, 'https://erp.example.com/hooks');
    assert.ok(!got.text.includes(secret));
    const [row] = await t.sql`select secret_sealed from webhook_settings where tenant_id = ${a.tenantId}`;
    assert.ok(!(row?.secretSealed as Buffer).includes(Buffer.from(secret)), 'sealed, not stored in clear');
    assert.ok(!t.logLines.join('').includes(secret), 'never logged');
    // Fields left out keep their value; null clears.
    await api.put('/api/webhooks/settings', { json: { webhookSecret: null } });
    assert.equal((await api.get('/api/webhooks/settings')).body.data.webhookUrl, 'https://erp.example.com/hooks');
    assert.equal((await api.get('/api/webhooks/settings')).body.data.secretConfigured, false);
  });

  test('bad settings are 422 with every problem', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    const cases: [unknown, string][] = [
      [{ webhookUrl: 'not a url' }, 'webhookUrl'],
      [{ webhookUrl: 'ftp://example.com/x' }, 'webhookUrl'],
      [{ webhookUrl: `https://example.com/${'a'.repeat(2050)}` }, 'webhookUrl'],
      [{ webhookUrl: 'https://user:pw@example.com/' }, 'webhookUrl'],
      [{ webhookSecret: 'short' }, 'webhookSecret'],
      [{ generate: true, webhookSecret: 'a long enough secret value' }, 'generate'],
      [{ webhookUrl: 42 }, 'webhookUrl'],
      [{ extra: 1 }, 'extra'],
    ];
    for (const [body, path] of cases) {
      const res = await api.put('/api/webhooks/settings', { json: body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.ok(res.body.error.details.some((d: { path: string }) => d.path === path), res.text);
    }
  });

  test('the settings and deliveries need a bearer token', async () => {
    const a = await newTenant(t.url);
    for (const [method, path] of [['GET', '/api/webhooks/settings'], ['GET', '/api/webhooks/deliveries'], ['POST', '/api/webhooks/test']] as const) {
      assert.equal((await call(t.url, method, path)).status, 401);
      assert.equal((await call(t.url, method, path, { headers: { 'x-api-key': a.apiKey } })).status, 401, 'an API key alone is not enough');
    }
  });
});

describe('delivery', () => {
  test('the test webhook is delivered signed with every header, and answered with its first attempt', async () => {
    const { a, api, r, secret } = await tenantWithWebhook();
    const res = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.delivery.status, 'delivered');
    assert.equal(res.body.data.attempt.ok, true);
    assert.equal(res.body.data.attempt.statusCode, 204);
    assert.equal(r.received.length, 1);
    const got = r.received[0];
    assert.ok(got);
    assert.equal(got.signatureValid, true);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.match(String(got.headers['user-agent']), /^ecf-service-webhooks\//);
    assert.equal(got.headers['x-ecf-tenant-id'], String(a.tenantId));
    assert.equal(got.headers['x-ecf-event'], 'webhook.test');
    assert.equal(got.headers['x-ecf-delivery-id'], res.body.data.delivery.id);
    assert.equal(got.headers['x-ecf-delivery-attempt'], '1');
    assert.deepEqual(Object.keys(got.json), ['event', 'tenantId', 'timestamp', 'message']);
    assert.equal(got.json.tenantId, a.tenantId);
    assert.match(String(got.json.timestamp), ISO_UTC_MS);
    assert.ok(secret);
    // Its job runs once more at once, finds the delivery delivered, and is gone; nothing is sent again.
    await waitFor(async () => {
      const [job] = await t.sql`select count(*)::int as n from jobs where unique_key = ${'delivery:' + res.body.data.delivery.id}`;
      return job?.n === 0;
    }, 10_000, 'the delivered test\'s job gone');
    assert.equal(r.received.length, 1);
  });

  test('without a secret no signature header is sent; without a URL the test webhook is 422', async () => {
    const { api, r } = await tenantWithWebhook({ withSecret: false });
    await api.post('/api/webhooks/test', { json: {} });
    assert.equal(r.received[0]?.headers['x-ecf-signature'], undefined);
    const b = await newTenant(t.url);
    const res = await call(t.url, 'POST', '/api/webhooks/test', { json: {}, headers: { authorization: `Bearer ${b.accessToken}` } });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.details[0].path, 'webhookUrl');
  });

  test('a document\'s status changes reach the receiver with exactly the specification\'s fields', async () => {
    const { a, r } = await tenantWithWebhook();
    // Documents are signed before they are sent: the tenant needs its certificate.
    assert.equal((await uploadCertificate(t.url, a.accessToken, makeTestCertificate(a.rnc))).status, 201);
    const emit = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    const id = emit.body.data.internalTrackId;
    await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['aceptado']);
    const events = await waitFor(async () => {
      // Its buyer leg's ecf.receptor_update follows the verdict: only the status changes count here.
      const mine = r.received.filter((x) => x.json.internalTrackId === id && x.json.event === 'ecf.status_update');
      return mine.length === 3 ? mine : undefined;
    });
    const estados = events.map((e) => e.json.estado).sort();
    assert.deepEqual(estados, ['aceptado', 'en_proceso', 'recibido']);
    for (const e of events) {
      assert.deepEqual(Object.keys(e.json), ['event', 'internalTrackId', 'encf', 'estado', 'dgiiCode', 'dgiiMessage', 'trackId', 'secuenciaUtilizada', 'timestamp', 'sequence']);
      assert.equal(e.headers['x-ecf-event-sequence'], String(e.json.sequence));
      assert.match(String(e.json.timestamp), ISO_UTC_MS);
      assert.equal(e.headers['x-ecf-event'], 'ecf.status_update');
      assert.equal(e.signatureValid, true);
    }
    const accepted = events.find((e) => e.json.estado === 'aceptado');
    assert.equal(accepted?.json.dgiiCode, '0');
    assert.equal(typeof accepted?.json.trackId, 'string');
    assert.equal(new Set(events.map((e) => e.headers['x-ecf-delivery-id'])).size, 3, 'one delivery per event');
    // The document's events are numbered in the order they happened, whatever order they arrived in.
    const order = ['recibido', 'en_proceso', 'aceptado'];
    assert.deepEqual([...events].sort((x, y) => Number(x.json.sequence) - Number(y.json.sequence)).map((e) => e.json.estado), order);
    assert.deepEqual(events.map((e) => Number(e.json.sequence)).sort(), [1, 2, 3]);
  });

  test('events of a tenant without a URL are recorded but not delivered, and the log says so once, not per event', async () => {
    const a = await newTenant(t.url);
    for (let i = 0; i < 3; i++) {
      const emit = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
      assert.equal(emit.status, 202);
    }
    const [row] = await t.sql`select (select count(*)::int from events where tenant_id = ${a.tenantId}) as events, (select count(*)::int from webhook_deliveries where tenant_id = ${a.tenantId}) as deliveries`;
    assert.ok((row?.events as number) >= 3);
    assert.equal(row?.deliveries, 0);
    const told = t.logLines.filter((l) => l.includes('no webhook URL is configured') && l.includes(`"tenant":${a.tenantId},`));
    assert.equal(told.length, 1, told.join('\n'));
  });
});

describe('recording attempts', () => {
  test('attempts that finish while a record is being written go together in the next one, one record statement at a time', async () => {
    const n = 12;
    // The receiver answers one delivery every 3 ms; each record takes 100 ms more.
    const { a, r } = await tenantWithWebhook({ respond: (_req, i) => ({ status: 204, delayMs: 3 * i }) });
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    const slow = watchStatements(t.sql, 'insert into webhook_attempts', 100);
    const settings = new WebhookSettings(t.sql, deriveKeys(Buffer.from(TEST_MASTER_KEY, 'hex'))['webhook-secrets'], config.webhooks);
    const engine = new DeliveryEngine(slow.sql, settings, config.webhooks, 'test', createLogger('error'));
    const outbox = new EventOutbox();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const event = await outbox.record(t.sql, a.tenantId, 'ecf.status_update', { encf: `E31${String(i + 1).padStart(10, '0')}`, estado: 'aceptado' });
      // Their jobs are due in an hour: the attempts below are this engine's alone.
      ids.push((await engine.createDelivery(t.sql, event, r.url, 3_600_000)).id);
    }
    const outcomes = await Promise.all(ids.map((id) => engine.attempt(id)));
    assert.deepEqual(outcomes.map((o) => o?.delivery.status), Array(n).fill('delivered'));
    assert.equal(r.received.length, n);
    assert.equal(slow.seen.maxInFlight, 1, 'one record statement at a time');
    assert.equal(slow.seen.rows.reduce((x, y) => x + y, 0), n, 'every attempt recorded once');
    assert.ok(slow.seen.statements <= 6, `${slow.seen.statements} statements recorded ${n} attempts (${slow.seen.rows.join(', ')})`);
    const [row] = await t.sql<{ attempts: number }[]>`select count(*)::int as attempts from webhook_attempts where delivery_id = any(${ids}::uuid[])`;
    assert.equal(row?.attempts, n);
  });
});

describe('deliveries API', () => {
  test('deliveries are listed with filters, shown with attempts and body, and scoped to the tenant', async () => {
    const { api, r } = await tenantWithWebhook({ respond: (_req, i) => ({ status: i === 0 ? 500 : 200 }) });
    const failedFirst = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(failedFirst.body.data.delivery.status, 'pending');
    assert.equal(failedFirst.body.data.attempt.statusCode, 500);
    assert.equal(failedFirst.body.data.attempt.error, 'receiver answered 500');
    const deliveryId = failedFirst.body.data.delivery.id;
    assert.equal((await api.get('/api/webhooks/deliveries?status=failed')).body.data.items[0]?.id, deliveryId);
    // The retry (50 ms later) succeeds.
    await waitFor(async () => (await api.get(`/api/webhooks/deliveries/${deliveryId}`)).body.data.status === 'delivered');
    const one = await api.get(`/api/webhooks/deliveries/${deliveryId}`);
    assert.deepEqual(one.body.data.attempts.map((x: { statusCode: number }) => x.statusCode), [500, 200]);
    assert.equal(JSON.parse(one.body.data.body).event, 'webhook.test');
    assert.equal(r.received[1]?.headers['x-ecf-delivery-id'], deliveryId, 'the delivery id is stable across retries');
    assert.equal(r.received[1]?.headers['x-ecf-delivery-attempt'], '2');
    assert.equal((await api.get('/api/webhooks/deliveries?status=failed')).body.data.items.length, 0);
    assert.equal((await api.get('/api/webhooks/deliveries?status=delivered&event=webhook.test')).body.data.items.length, 1);
    assert.equal((await api.get('/api/webhooks/deliveries?event=ecf.status_update')).body.data.items.length, 0);

    const other = await newTenant(t.url);
    const foreign = await call(t.url, 'GET', `/api/webhooks/deliveries/${deliveryId}`, { headers: { authorization: `Bearer ${other.accessToken}` } });
    assert.equal(foreign.status, 404);
    assert.equal((await call(t.url, 'POST', `/api/webhooks/deliveries/${deliveryId}/redeliver`, { headers: { authorization: `Bearer ${other.accessToken}` } })).status, 404);
    assert.deepEqual((await call(t.url, 'GET', '/api/webhooks/deliveries', { headers: { authorization: `Bearer ${other.accessToken}` } })).body.data.items, []);
  });

  test('each delivery names its subject from its event: the document and its estado, null for a test', async () => {
    const { a, api } = await tenantWithWebhook();
    assert.equal((await uploadCertificate(t.url, a.accessToken, makeTestCertificate(a.rnc))).status, 201);
    const emit = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    const { internalTrackId, encf } = emit.body.data as { internalTrackId: string; encf: string };
    await waitForEstado(t.url, 'TesteCF', internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado']);
    const test = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(test.body.data.delivery.subject, null);

    type Item = { id: string; event: string; subject: unknown };
    const items = await waitFor(async () => {
      // The buyer leg's ecf.receptor_update may come too; this test is about the other kinds.
      const list = ((await api.get('/api/webhooks/deliveries')).body.data.items as Item[]).filter((d) => d.event !== 'ecf.receptor_update');
      return list.length === 4 ? list : undefined;
    }, 10_000, 'three status deliveries and the test');
    // Newest first: the test, then aceptado, en_proceso, recibido.
    assert.deepEqual(items.map((d) => d.subject), [
      null,
      { encf, estado: 'aceptado', internalTrackId },
      { encf, estado: 'en_proceso', internalTrackId },
      { encf, estado: 'recibido', internalTrackId },
    ]);
    const accepted = items[1] as Item;
    assert.deepEqual((await api.get(`/api/webhooks/deliveries/${accepted.id}`)).body.data.subject, { encf, estado: 'aceptado', internalTrackId });
    const redelivered = await api.post(`/api/webhooks/deliveries/${accepted.id}/redeliver`, { json: {} });
    assert.equal(redelivered.status, 202);
    assert.deepEqual(redelivered.body.data.subject, { encf, estado: 'aceptado', internalTrackId });
    assert.equal((await api.get(`/api/webhooks/deliveries/${(items[0] as Item).id}`)).body.data.subject, null);
  });

  test('paging walks every delivery once, newest first', async () => {
    const { api } = await tenantWithWebhook();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.post('/api/webhooks/test', { json: {} })).body.data.delivery.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { items: { id: string }[]; nextCursor: string | null } } } = await api.get(`/api/webhooks/deliveries?pageSize=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.data.items.map((d) => d.id));
      cursor = page.body.data.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(seen, [...ids].reverse());
  });

  test('status=pending lists only pending deliveries, and a page holds 50 unless pageSize says otherwise', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    // 55 pending and 3 delivered deliveries, without jobs, so they stay as they are.
    await t.sql.begin(async (tx) => {
      for (const [status, n] of [['delivered', 3], ['pending', 55]] as const) {
        await tx`
          with e as (
            insert into events (id, tenant_id, kind, body)
            select gen_random_uuid(), ${a.tenantId}, 'ecf.status_update', '{"event":"ecf.status_update"}' from generate_series(1, ${n})
            returning id
          )
          insert into webhook_deliveries (id, tenant_id, event_id, event, status, url, attempt_count, last_attempt_ok)
          select gen_random_uuid(), ${a.tenantId}, e.id, 'ecf.status_update', ${status}, 'https://hooks.example.com/', 1, ${status === 'delivered'} from e`;
      }
    });
    const walk = async (query: string) => {
      const pages: { status: string }[][] = [];
      let cursor: string | null = null;
      do {
        const res: { body: { data: { items: { status: string }[]; nextCursor: string | null } } } = await api.get(`/api/webhooks/deliveries?${query}${cursor ? `&cursor=${cursor}` : ''}`);
        pages.push(res.body.data.items);
        cursor = res.body.data.nextCursor;
      } while (cursor !== null);
      return pages;
    };
    assert.deepEqual((await walk('')).map((p) => p.length), [50, 8]);
    const pending = await walk('status=pending');
    assert.deepEqual(pending.map((p) => p.length), [50, 5]);
    assert.ok(pending.flat().every((d) => d.status === 'pending'));
    assert.deepEqual((await walk('status=delivered')).map((p) => p.length), [3]);
    assert.deepEqual((await walk('status=pending&pageSize=500')).map((p) => p.length), [55]);
  });

  test('bad filter values are 422, never 500', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    for (const q of ['status=lost', 'event=ecf.deleted', 'pageSize=0', 'pageSize=501', 'pageSize=-1', 'cursor=%%%', 'cursor=abc', 'limit=10', 'status=failed&status=pending']) {
      const res = await api.get(`/api/webhooks/deliveries?${q}`);
      assert.equal(res.status, 422, q);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
    assert.equal((await api.get('/api/webhooks/deliveries/not-a-uuid')).status, 404);
    assert.equal((await api.get('/api/webhooks/deliveries/00000000-0000-4000-8000-000000000000')).status, 404);
  });

  test('the test webhook is in the sensitive scope: 10 per minute', async () => {
    const { api } = await tenantWithWebhook();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await api.post('/api/webhooks/test', { json: {} })).status);
    assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
  });
});
