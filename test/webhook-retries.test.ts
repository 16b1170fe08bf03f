import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, newTenant } from './helpers/http.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { startReceiver, type Answer, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

const DELAYS = [100, 150, 200, 250, 300];
let t: TestService;
const receivers: Receiver[] = [];
before(async () => {
  t = await startTestService({
    env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(','), WEBHOOK_TIMEOUT_MS: '1500', QUEUE_LEASE_MS: '1500', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' },
  });
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

async function setup(respond: (index: number) => Answer) {
  const a = await newTenant(t.url);
  const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
  const r = await startReceiver({ respond: (_req, i) => respond(i) });
  receivers.push(r);
  await api.put('/api/webhooks/settings', { json: { webhookUrl: r.url } });
  return { a, api, r };
}

async function finalDelivery(api: ReturnType<typeof client>, id: string) {
  return waitFor(async () => {
    const d = (await api.get(`/api/webhooks/deliveries/${id}`)).body.data;
    return d.status !== 'pending' ? d : undefined;
  });
}

describe('retry schedule', () => {
  test('failing six times ends abandoned after exactly six attempts, spaced by the schedule', async () => {
    const { api, r } = await setup(() => ({ status: 503 }));
    const first = await api.post('/api/webhooks/test', { json: {} });
    const d = await finalDelivery(api, first.body.data.delivery.id);
    assert.equal(d.status, 'abandoned');
    assert.equal(d.attempts.length, 6);
    assert.equal(d.nextAttemptAt, null);
    await new Promise((res) => setTimeout(res, 500));
    assert.equal(r.received.length, 6, 'no attempt after abandonment');
    assert.deepEqual(r.received.map((x) => x.headers['x-ecf-delivery-attempt']), ['1', '2', '3', '4', '5', '6']);
    const gaps = r.received.slice(1).map((x, i) => x.at - (r.received[i]?.at ?? 0));
    gaps.forEach((gap, i) => assert.ok(gap >= (DELAYS[i] as number) - 5, `retry ${i + 1} waited ${gap} ms, at least ${DELAYS[i]}`));
    assert.equal((await api.get('/api/webhooks/deliveries?status=failed')).body.data.items[0]?.id, d.id);
    assert.equal((await api.get('/api/webhooks/deliveries?status=abandoned')).body.data.items[0]?.id, d.id);
  });

  test('failing twice then answering 2xx is delivered on attempt 3', async () => {
    const { api, r } = await setup((i) => ({ status: i < 2 ? 500 : 202 }));
    const first = await api.post('/api/webhooks/test', { json: {} });
    const d = await finalDelivery(api, first.body.data.delivery.id);
    assert.equal(d.status, 'delivered');
    assert.equal(d.attemptCount, 3);
    assert.deepEqual(d.attempts.map((x: { ok: boolean }) => x.ok), [false, false, true]);
    assert.equal(r.received.length, 3);
    assert.notEqual(d.deliveredAt, null);
  });

  test('a receiver that never answers fails by timeout, recorded as such', async () => {
    const { api } = await setup((i) => (i === 0 ? 'hang' : { status: 200 }));
    const first = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(first.body.data.attempt.ok, false);
    assert.equal(first.body.data.attempt.statusCode, null);
    assert.equal(first.body.data.attempt.error, 'no answer within 1500 ms');
    assert.ok(first.body.data.attempt.durationMs >= 1490);
    const d = await finalDelivery(api, first.body.data.delivery.id);
    assert.equal(d.status, 'delivered');
  });

  test('a redirect is a failure and is not followed', async () => {
    const target = await startReceiver();
    receivers.push(target);
    const { api } = await setup(() => ({ status: 302, headers: { location: target.url } }));
    const first = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(first.body.data.attempt.ok, false);
    assert.equal(first.body.data.attempt.error, 'redirect 302 not followed');
    assert.equal(target.received.length, 0);
  });

  test('a connection refused is a failure with a clear error, and the first KiB of an answer is kept', async () => {
    const { api, r } = await setup(() => ({ status: 500, body: 'x'.repeat(5000) }));
    const first = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(first.body.data.attempt.responseBody.length, 1024);
    await r.close();
    const again = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(again.body.data.attempt.error, 'connection refused');
  });

  test('redeliver starts a new series for a delivered or abandoned delivery', async () => {
    let fail = true;
    const { api, r } = await setup(() => ({ status: fail ? 500 : 200 }));
    const first = await api.post('/api/webhooks/test', { json: {} });
    const id = first.body.data.delivery.id;
    assert.equal((await finalDelivery(api, id)).status, 'abandoned');
    fail = false;
    const re = await api.post(`/api/webhooks/deliveries/${id}/redeliver`);
    assert.equal(re.status, 202);
    assert.equal(re.body.data.status, 'pending');
    const d = await finalDelivery(api, id);
    assert.equal(d.status, 'delivered');
    assert.equal(d.attemptCount, 7);
    assert.equal(r.received.at(-1)?.headers['x-ecf-delivery-id'], id);
    assert.equal(r.received.at(-1)?.headers['x-ecf-delivery-attempt'], '7');
  });
});

describe('robustness', () => {
  test('a delivery whose worker died mid-attempt is attempted again after its lease', async () => {
    const { a, api, r } = await setup(() => ({ status: 200 }));
    // Record an event with a delivery, then claim its job as a worker that dies at once.
    const emitted = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(emitted.body.data.delivery.status, 'delivered');
    const { randomUUID } = await import('node:crypto');
    const eventId = randomUUID();
    const deliveryId = randomUUID();
    await t.sql.begin(async (tx) => {
      await tx`insert into events (id, tenant_id, kind, body) values (${eventId}, ${a.tenantId}, 'ecf.status_update', '{"event":"ecf.status_update"}')`;
      await tx`insert into webhook_deliveries (id, tenant_id, event_id, event, status, url) values (${deliveryId}, ${a.tenantId}, ${eventId}, 'ecf.status_update', 'pending', ${r.url})`;
      // Claimed by a worker that died at once: the lease runs out in 800 ms.
      await tx`insert into jobs (kind, payload, unique_key, attempts, locked_by, locked_until)
               values ('webhook.deliver', ${tx.json({ deliveryId, tenantId: a.tenantId })}, ${'delivery:' + deliveryId}, 1, 'worker-that-died', now() + interval '800 milliseconds')`;
    });
    const before = Date.now();
    const d = await finalDelivery(api, deliveryId);
    assert.equal(d.status, 'delivered');
    assert.ok(Date.now() - before >= 600, 'only after the lease expired');
    assert.equal(r.received.filter((x) => x.headers['x-ecf-delivery-id'] === deliveryId).length, 1);
  });

  test('one slow receiver does not hold up another tenant\'s deliveries', async () => {
    // Slow, yet well inside the 1500 ms timeout even on a busy machine: no attempt here may fail.
    const slow = await setup(() => ({ status: 200, delayMs: 250 }));
    const fast = await setup(() => ({ status: 200 }));
    const { randomUUID } = await import('node:crypto');
    // 40 deliveries queued for the slow tenant, then one for the fast tenant.
    await t.sql.begin(async (tx) => {
      for (const [tenant, count] of [[slow.a.tenantId, 40], [fast.a.tenantId, 1]] as const) {
        for (let i = 0; i < count; i++) {
          const eventId = randomUUID();
          const deliveryId = randomUUID();
          await tx`insert into events (id, tenant_id, kind, body) values (${eventId}, ${tenant}, 'ecf.status_update', '{"event":"ecf.status_update"}')`;
          await tx`insert into webhook_deliveries (id, tenant_id, event_id, event, status, url) values (${deliveryId}, ${tenant}, ${eventId}, 'ecf.status_update', 'pending', 'x')`;
          await tx`insert into jobs (kind, payload, unique_key) values ('webhook.deliver', ${tx.json({ deliveryId, tenantId: tenant })}, ${'delivery:' + deliveryId})`;
        }
      }
    });
    // Judged against the slow tenant's own progress, not the clock, so that a loaded machine
    // (which slows both) cannot fail it: with 10 slots per tenant the 40 slow deliveries take
    // four rounds of 250 ms at least; behind them, the fast one would arrive after ~30.
    const slowIds = () => new Set(slow.r.received.map((x) => x.headers['x-ecf-delivery-id'])).size;
    const slowBeforeFast = await waitFor(async () => (fast.r.received.length === 1 ? slowIds() : undefined), 30_000, 'the fast delivery received');
    assert.ok(slowBeforeFast <= 20, `the fast receiver waited for ${slowBeforeFast} of the slow tenant's 40 deliveries`);
    await waitFor(async () => slowIds() === 40, 30_000, 'every slow delivery received');
  });
});
