import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log.ts';
import { claimJobs, insertJob } from '../../src/queue/queries.ts';
import { newTenantWithCertificate } from '../helpers/certificates.ts';
import { ecfFor } from '../helpers/documents.ts';
import { call, newTenant, type ApiResponse, type Loose } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { claimLedger, installClaimLedger, overlappingClaims } from './helpers/claims.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';
import { assertAllAccepted, assertCompleteHistories, assertEveryEventDelivered, deliveryRecords, documentRecords, waitUntilSettled } from './helpers/ledger.ts';
import { startSharedSimulator, type SharedSimulator } from './helpers/simulator.ts';

// Three service processes on one database share the queue: every job runs once, on
// whichever instance claims it first, and no two instances hold one job at once (every
// claim is recorded by a trigger, helpers/claims.ts); rate limits are each instance's own
// (docs/operations.md, "Several instances").

const INSTANCES = 3;
const DOCUMENTS_PER_TENANT = 30;
const DEFAULT_PER_MINUTE = 20;

let db: TestDatabase;
let sim: SharedSimulator;
let receiver: Receiver;
let instances: Instance[];
before(async () => {
  db = await faultDatabase();
  // Migrated here, before any instance starts, so the ledger sees every claim they make.
  await migrate(db.db.sql, createLogger('silent'));
  await installClaimLedger(db.db.sql);
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

test('the claim ledger counts a second owner taking a live lease as an overlap, and neither a renewal nor a takeover after expiry', async () => {
  // The instances run no `noop` handler, so these jobs are the test's alone.
  const sql = db.db.sql;
  const renewed = await insertJob(sql, { kind: 'noop' });
  const expired = await insertJob(sql, { kind: 'noop' });
  assert.ok(renewed !== null && expired !== null);
  const mine = [renewed, expired];
  try {
    assert.equal((await claimJobs(sql, ['noop'], 'ledger-check:a', 1, 5_000))[0]?.id, renewed);
    // A renewal: the owner extends the lease it still holds.
    await sql`update jobs set locked_until = now() + interval '10 seconds' where id = ${renewed} and locked_by = 'ledger-check:a'`;
    assert.equal((await claimJobs(sql, ['noop'], 'ledger-check:a', 1, 1))[0]?.id, expired);
    await sleep(50);
    // A takeover once the lease ran out: what the queue does with a dead worker's job.
    assert.equal((await claimJobs(sql, ['noop'], 'ledger-check:b', 1, 5_000))[0]?.id, expired);
    const ledger = (await claimLedger(sql)).filter((c) => mine.includes(c.jobId));
    assert.deepEqual(ledger.map((c) => [c.jobId, c.owner, c.renewals]), [[renewed, 'ledger-check:a', 1], [expired, 'ledger-check:a', 0], [expired, 'ledger-check:b', 0]]);
    assert.deepEqual((await overlappingClaims(sql)).filter((o) => mine.includes(o.jobId)), []);

    // What a broken claim would do: another owner takes the job while the lease is live.
    await sql`update jobs set locked_by = 'ledger-check:c', locked_until = now() + interval '5 seconds' where id = ${renewed}`;
    const overlaps = (await overlappingClaims(sql)).filter((o) => mine.includes(o.jobId));
    assert.deepEqual(overlaps.map((o) => [o.jobId, o.firstOwner, o.secondOwner]), [[renewed, 'ledger-check:a', 'ledger-check:c']]);
  } finally {
    await sql`delete from jobs where id = any(${mine}::bigint[])`;
    await sql`delete from faults_job_claims where job_id = any(${mine}::bigint[])`;
  }
});

test('emits spread over three instances are each processed once: one submission, one delivery, one receipt', async (t) => {
  const tenants = [await newTenantWithCertificate(instances[0]!.url), await newTenantWithCertificate(instances[1]!.url)];
  for (const tenant of tenants) {
    const put = await call(instances[2]!.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: receiver.url }, headers: { authorization: `Bearer ${tenant.accessToken}` } });
    assert.equal(put.status, 200, put.text);
  }

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

  // Every claim of every job, checked pairwise: no owner took a job another owner's lease still held.
  const claims = await claimLedger(db.db.sql);
  const overlaps = await overlappingClaims(db.db.sql);
  assert.deepEqual(overlaps.map((o) => `job ${o.jobId} (${o.kind}): ${o.firstOwner} from ${o.firstClaimedAt.toISOString()} to ${o.firstEnded.toISOString()}, ${o.secondOwner} from ${o.secondClaimedAt.toISOString()}`), [], 'no job claimed by two instances at once');
  const claimsOf = (kind: string) => claims.filter((c) => c.kind === kind).length;
  assert.ok(claimsOf('document.submit') >= ids.length, `the ledger saw every submission claimed (${claimsOf('document.submit')} claims, ${ids.length} documents)`);
  assert.ok(claimsOf('webhook.deliver') >= deliveries.size, `the ledger saw every delivery claimed (${claimsOf('webhook.deliver')} claims, ${deliveries.size} deliveries)`);

  const pids = new Set(instances.map((i) => String(i.pid)));
  const working = new Set(claims.map((c) => c.owner.split(':')[1] ?? '').filter((pid) => pids.has(pid)));
  assert.equal(working.size, INSTANCES, `every instance claimed jobs (${working.size} did)`);
  // Any instance reads what another wrote.
  const detail = await call(instances[1]!.url, 'GET', `/TesteCF/documentos-ecf/${ids[0]}`, { headers: { 'x-api-key': tenants[0]!.apiKey } });
  assert.equal(detail.status, 200);
  t.diagnostic(`${docs.length} documents, ${deliveries.size} deliveries, ${receiver.received.length} receipts; ${claims.length} claims (${claims.reduce((n, c) => n + c.renewals, 0)} renewals) by ${working.size} of ${INSTANCES} instances`);
});

test('rate limits are per instance: the request over the limit on one instance is 429, another instance still answers', async () => {
  const tenant = await newTenant(instances[2]!.url);
  const headers = { 'x-api-key': tenant.apiKey };
  // The bucket refills one token every 60/DEFAULT_PER_MINUTE s, so on a slow machine a few more
  // than DEFAULT_PER_MINUTE requests may pass before the first 429: as many as the time taken allows.
  const started = Date.now();
  let allowed = 0;
  let limited: ApiResponse<Loose> | undefined;
  while (limited === undefined && allowed <= DEFAULT_PER_MINUTE * 3) {
    const res = await call(instances[0]!.url, 'GET', '/api/whoami', { headers });
    if (res.status === 200) allowed++;
    else limited = res;
  }
  const refills = Math.floor(((Date.now() - started) * DEFAULT_PER_MINUTE) / 60_000);
  assert.ok(limited !== undefined, `no 429 after ${allowed} requests`);
  assert.equal(limited.status, 429, limited.text);
  assert.equal(limited.body.error.code, 'RATE_LIMITED');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.ok(allowed >= DEFAULT_PER_MINUTE && allowed <= DEFAULT_PER_MINUTE + refills, `${allowed} requests allowed on the first instance: the burst of ${DEFAULT_PER_MINUTE} plus ${refills} refilled meanwhile at most`);

  const other = await call(instances[1]!.url, 'GET', '/api/whoami', { headers });
  assert.equal(other.status, 200, 'the same tenant is within its limit on another instance');
  assert.equal(other.body.data.tenantId, tenant.tenantId);
});
