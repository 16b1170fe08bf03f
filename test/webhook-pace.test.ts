import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { queueDeliveriesOn } from './helpers/deliveries.ts';
import { client, newTenant } from './helpers/http.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { startReceiver, type Answer, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// WEBHOOK_MAX_IN_FLIGHT_PER_TENANT keeps a slow receiver from holding every slot; a receiver that
// answers quickly may have up to half of WEBHOOK_CONCURRENCY in flight (docs/webhooks.md).

const CONCURRENCY = 12;
const PER_TENANT = 2;
let t: TestService;
const receivers: Receiver[] = [];
before(async () => {
  t = await startTestService({
    env: {
      ...FAST_PIPELINE,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      WEBHOOK_MAX_IN_FLIGHT_PER_TENANT: String(PER_TENANT),
    },
  });
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

/** The most requests a tenant's receiver, answering `answer`, had open while `count` deliveries went out. */
async function mostInFlight(answer: Answer, count: number): Promise<number> {
  const a = await newTenant(t.url);
  const r = await startReceiver({ respond: () => answer });
  receivers.push(r);
  const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
  assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: r.url } })).status, 200);
  await queueDeliveriesOn(t, a.tenantId, count);
  await waitFor(async () => r.received.length === count && r.inFlight === 0, 30_000);
  return r.maxInFlight;
}

test('a receiver that answers quickly has more than the per-tenant limit in flight, up to half the slots', async () => {
  const most = await mostInFlight({ status: 204, delayMs: 30 }, 60);
  assert.ok(most > PER_TENANT && most <= CONCURRENCY / 2, `${most} in flight at most`);
});

test('a receiver that answers slowly has the per-tenant limit in flight', async () => {
  assert.equal(await mostInFlight({ status: 204, delayMs: 400 }, 8), PER_TENANT);
});
