import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { newTenantWithCertificate } from '../helpers/certificates.ts';
import { ecfFor } from '../helpers/documents.ts';
import { call, newTenant } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';
import { assertAllAccepted, assertCompleteHistories, assertEveryEventDelivered, deliveryRecords, documentRecords, waitUntilSettled } from './helpers/ledger.ts';
import { startSharedSimulator, type SharedSimulator } from './helpers/simulator.ts';

// Three service processes on one database share the queue: every job runs once, on
// whichever instance claims it first; rate limits are each instance's own (README,
// "Several instances").

const INSTANCES = 3;
const DOCUMENTS_PER_TENANT = 30;
const DEFAULT_PER_MINUTE = 20;

let db: TestDatabase;
let sim: SharedSimulator;
let receiver: Receiver;
let instances: Instance[];
before(async () => {
  db = await faultDatabase();
  sim = await startSharedSimulator(300);
  receiver = await startReceiver({ respond: () => ({ status: 204, delayMs: 20 }) });
  const env = await faultEnv(db.url, { ...sim.env, RATE_LIMIT_DEFAULT_PER_MINUTE: String(DEFAULT_PER_MINUTE) });
  instances = await Promise.all(Array.from({ length: INSTANCES }, () => startInstance(env)));
});
after(async () => {
  await stopAllInstances();
  await receiver?.close();
  await sim?.close();
  await db?.close();
});

test('emits spread over three instances are each processed once: one submission, one delivery, one receipt', async (t) => {
  const tenants = [await newTenantWithCertificate(instances[0]!.url), await newTenantWithCertificate(instances[1]!.url)];
  for (const tenant of tenants) {
    const put = await call(instances[2]!.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: receiver.url }, headers: { authorization: `Bearer ${tenant.accessToken}` } });
    assert.equal(put.status, 200, put.text);
  }

  // Who holds leases while the work runs: every instance should take part.
  const owners = new Set<string>();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const r of await db.db.sql<{ lockedBy: string }[]>`select locked_by from jobs where locked_by is not null and locked_until > now()`) owners.add(r.lockedBy.split(':')[1] ?? '');
      await sleep(20);
    }
  })();

  const jobs = tenants.flatMap((tenant, k) => Array.from({ length: DOCUMENTS_PER_TENANT }, (_, i) => ({ tenant, n: k * DOCUMENTS_PER_TENANT + i })));
  const ids: string[] = [];
  await Promise.all(Array.from({ length: 6 }, async (_, worker) => {
    for (let j = worker; j < jobs.length; j += 6) {
      const { tenant, n } = jobs[j]!;
      const instance = instances[n % INSTANCES]!;
      const res = await call(instance.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers: { 'x-api-key': tenant.apiKey } });
      assert.equal(res.status, 202, res.text);
      ids.push(res.body.data.internalTrackId as string);
    }
  }));
  const tenantIds = tenants.map((x) => x.tenantId);
  await waitUntilSettled(db.db.sql, tenantIds, 60_000);
  sampling = false;
  await sampler;

  const docs = await documentRecords(db.db.sql, tenantIds);
  assert.deepEqual(docs.map((d) => d.id).sort(), [...ids].sort());
  assertCompleteHistories(docs);
  assertAllAccepted(docs);
  // A submission run twice would have reached the authority twice.
  assert.equal(sim.simulator.counters().documentsReceived, ids.length, 'each document submitted exactly once');

  const ledger = await deliveryRecords(db.db.sql, tenantIds);
  const deliveries = assertEveryEventDelivered(ledger);
  for (const d of deliveries.values()) assert.deepEqual(d.attempts, [{ number: 1, ok: true }], `delivery ${d.id}: one attempt, by one worker`);
  const receipts = new Map<string, number>();
  for (const r of receiver.received) {
    const id = String(r.headers['x-ecf-delivery-id']);
    receipts.set(id, (receipts.get(id) ?? 0) + 1);
  }
  assert.equal(receipts.size, deliveries.size, 'the receiver got every delivery');
  for (const [id, n] of receipts) assert.equal(n, 1, `delivery ${id} received exactly once`);

  const pids = new Set(instances.map((i) => String(i.pid)));
  const working = [...owners].filter((o) => pids.has(o));
  assert.equal(working.length, INSTANCES, `every instance claimed jobs (${working.length} did)`);
  // Any instance reads what another wrote.
  const detail = await call(instances[1]!.url, 'GET', `/TesteCF/documentos-ecf/${ids[0]}`, { headers: { 'x-api-key': tenants[0]!.apiKey } });
  assert.equal(detail.status, 200);
  t.diagnostic(`${docs.length} documents, ${deliveries.size} deliveries, ${receiver.received.length} receipts; job owners seen: ${working.length} of ${INSTANCES} instances`);
});

test('rate limits are per instance: the request over the limit on one instance is 429, another instance still answers', async () => {
  const tenant = await newTenant(instances[2]!.url);
  const headers = { 'x-api-key': tenant.apiKey };
  const statuses: number[] = [];
  for (let i = 0; i < DEFAULT_PER_MINUTE + 1; i++) statuses.push((await call(instances[0]!.url, 'GET', '/api/whoami', { headers })).status);
  assert.deepEqual(statuses, [...Array(DEFAULT_PER_MINUTE).fill(200), 429], `${DEFAULT_PER_MINUTE} per minute on the first instance`);
  const limited = await call(instances[0]!.url, 'GET', '/api/whoami', { headers });
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error.code, 'RATE_LIMITED');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);

  const other = await call(instances[1]!.url, 'GET', '/api/whoami', { headers });
  assert.equal(other.status, 200, 'the same tenant is within its limit on another instance');
  assert.equal(other.body.data.tenantId, tenant.tenantId);
});
