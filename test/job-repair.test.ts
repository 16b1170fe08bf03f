import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DgiiSimulator } from '../src/dgii/simulator/index.ts';
import { repairMissingJobs } from '../src/maintenance/repair.ts';
import { jobRepairers } from '../src/maintenance/repairers.ts';
import type { JobKind } from '../src/queue/kinds.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, client, newTenant } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// Work in flight that lost its job (a write the database driver lost once did that) gets it
// back from the periodic repair: a pending delivery is delivered, a document is sent or its
// verdict fetched. The repair's period is an hour here; the tests make it due when they want it.

const RETRY_LATER = '60000';
let t: TestService;
let simulator: DgiiSimulator;
const receivers: Receiver[] = [];
before(async () => {
  t = await startTestService({
    env: {
      ...FAST_PIPELINE,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      // A failed attempt or call waits a minute, long enough to take its job away meanwhile.
      WEBHOOK_RETRY_DELAYS_MS: RETRY_LATER,
      DGII_RETRY_BASE_MS: RETRY_LATER,
      DGII_RETRY_MAX_MS: RETRY_LATER,
      JOB_REPAIR_INTERVAL_MS: '3600000',
      RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000',
    },
  });
  assert.ok(t.service.simulator !== null);
  simulator = t.service.simulator;
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

/** Makes the repair job due, wakes the worker and waits for the run to finish (it reschedules itself an hour ahead). */
async function runRepair(): Promise<void> {
  await t.sql`update jobs set run_at = now() where unique_key = 'maintenance.repair'`;
  t.service.runtime.nudge();
  await waitFor(async () => {
    const [job] = await t.sql<{ later: boolean }[]>`select run_at > now() + interval '30 minutes' as later from jobs where unique_key = 'maintenance.repair'`;
    return job?.later === true && (await t.sql`select 1 from jobs where unique_key = 'maintenance.repair' and run_at <= now()`).length === 0;
  }, 10_000, 'the repair run');
}

async function repairedTotal(kind: JobKind): Promise<number> {
  const res = await call(t.url, 'GET', '/metrics');
  assert.equal(res.status, 200);
  const m = new RegExp(`^ecf_repaired_jobs_total\\{kind="${kind.replace('.', '\\.')}"\\} (\\d+)$`, 'm').exec(res.text);
  assert.ok(m !== null, `ecf_repaired_jobs_total{kind="${kind}"} is exposed`);
  return Number(m[1]);
}

/** The tenant's documents' jobs of `kind` (at most one each): their last error and id. */
async function documentJob(kind: 'document.submit' | 'document.poll', documentId: string) {
  const rows = await t.sql<{ id: string; lastError: string | null }[]>`select id, last_error from jobs where kind = ${kind} and payload ->> 'documentId' = ${documentId}`;
  assert.ok(rows.length <= 1, `at most one ${kind} job for ${documentId}`);
  return rows[0];
}

test('a pending delivery whose job was lost is delivered after the repair, and /metrics counts the job', async () => {
  const before = await repairedTotal('webhook.deliver');
  const tenant = await newTenant(t.url);
  const api = client(t.url, { authorization: `Bearer ${tenant.accessToken}` });
  const receiver = await startReceiver({ respond: (_req, i) => ({ status: i === 0 ? 503 : 204 }) });
  receivers.push(receiver);
  assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: receiver.url } })).status, 200);
  const first = await api.post('/api/webhooks/test', { json: {} });
  assert.equal(first.body.data.attempt.ok, false);
  const id = first.body.data.delivery.id as string;

  const lost = await t.sql`delete from jobs where unique_key = ${`delivery:${id}`} returning id`;
  assert.equal(lost.length, 1, 'the delivery had its job, now gone');
  await sleep(300);
  assert.equal((await api.get(`/api/webhooks/deliveries/${id}`)).body.data.status, 'pending', 'without a job, nothing moves');

  await runRepair();
  const delivered = await waitFor(async () => {
    const d = (await api.get(`/api/webhooks/deliveries/${id}`)).body.data;
    return d.status === 'delivered' ? d : undefined;
  }, 10_000, 'the delivery delivered');
  assert.equal(delivered.attempts.length, 2);
  assert.equal(receiver.received.length, 2);
  assert.equal(await repairedTotal('webhook.deliver'), before + 1);
});

test('a document waiting to be sent whose job was lost is sent after the repair', async () => {
  const before = await repairedTotal('document.submit');
  const tenant = await newTenantWithCertificate(t.url);
  simulator.injectFault({ service: 'recepcion', status: 503, times: 1 });
  const headers = { 'x-api-key': tenant.apiKey };
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers });
  assert.equal(res.status, 202, res.text);
  const id = res.body.data.internalTrackId as string;
  const job = await waitFor(async () => {
    const j = await documentJob('document.submit', id);
    return j?.lastError == null ? undefined : j;
  }, 10_000, 'the first upload failed and its retry waits');
  await t.sql`delete from jobs where id = ${job.id}`;

  await runRepair();
  const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
  assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'en_proceso', 'aceptado']);
  assert.equal(await repairedTotal('document.submit'), before + 1);
});

test('a document waiting for its verdict whose poll job was lost gets its verdict after the repair', async () => {
  const before = await repairedTotal('document.poll');
  const tenant = await newTenantWithCertificate(t.url);
  simulator.injectFault({ service: 'estado', status: 503, times: 1 });
  const headers = { 'x-api-key': tenant.apiKey };
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers });
  assert.equal(res.status, 202, res.text);
  const id = res.body.data.internalTrackId as string;
  const job = await waitFor(async () => {
    const j = await documentJob('document.poll', id);
    return j?.lastError == null ? undefined : j;
  }, 10_000, 'the first status query failed and its retry waits');
  await t.sql`delete from jobs where id = ${job.id}`;

  await runRepair();
  const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
  assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'en_proceso', 'aceptado']);
  assert.equal(await repairedTotal('document.poll'), before + 1);
});

test('an annulment waiting to be sent whose job was lost is sent after the repair', async () => {
  const before = await repairedTotal('annulment.submit');
  const tenant = await newTenantWithCertificate(t.url);
  const api = client(t.url, { 'x-api-key': tenant.apiKey });
  const range = await api.post('/TesteCF/secuencias', { json: { tipo: 31, desde: 'E310000000001', hasta: 'E310000000100', fechaVencimiento: '31-12-2099' } });
  assert.equal(range.status, 201, range.text);
  simulator.injectFault({ service: 'anulacion', status: 503, times: 1 });
  const made = await api.post('/TesteCF/anulaciones', { json: { tipo: 31, desde: 'E310000000051', hasta: 'E310000000100' } });
  assert.equal(made.status, 202, made.text);
  const id = made.body.data.id as string;
  const job = await waitFor(async () => {
    const [j] = await t.sql<{ id: string; lastError: string | null }[]>`select id, last_error from jobs where kind = 'annulment.submit' and payload ->> 'annulmentId' = ${id}`;
    return j?.lastError == null ? undefined : j;
  }, 10_000, 'the first upload failed and its retry waits');
  await t.sql`delete from jobs where id = ${job.id}`;

  await runRepair();
  await waitFor(async () => (await api.get(`/TesteCF/anulaciones/${id}`)).body.data.estado === 'aceptado' || undefined, 15_000, 'the annulment accepted');
  assert.equal(await repairedTotal('annulment.submit'), before + 1);
});

test('two repairs at once add each missing job once', async () => {
  const tenant = await newTenantWithCertificate(t.url);
  const receiver = await startReceiver({ respond: () => ({ status: 503 }) });
  receivers.push(receiver);
  const bearer = { authorization: `Bearer ${tenant.accessToken}` };
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: receiver.url }, headers: bearer })).status, 200);
  const headers = { 'x-api-key': tenant.apiKey };
  simulator.injectFault({ service: 'estado', status: 503, times: 1 });
  const polled = (await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers })).body.data.internalTrackId as string;
  await waitFor(async () => (await documentJob('document.poll', polled))?.lastError != null, 10_000, 'a document waiting for its verdict');
  await waitFor(async () => receiver.received.length >= 2, 10_000, 'its two deliveries attempted');
  // No worker from here on: what the repairs add stays in the table to be counted.
  await Promise.all([t.service.runtime.stop(1000), t.service.deliveries.stop(1000)]);
  const queued = (await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers })).body.data.internalTrackId as string;

  const lost = await t.sql`delete from jobs where kind in ('webhook.deliver', 'document.submit', 'document.poll') returning kind`;
  assert.ok(lost.length >= 5, `the jobs of two documents and their deliveries are gone (${lost.length})`);
  const added = new Map<string, number>();
  const count = (kind: string, n: number) => void added.set(kind, (added.get(kind) ?? 0) + n);
  const repairers = jobRepairers(t.config);
  await Promise.all([repairMissingJobs(t.sql, repairers, count), repairMissingJobs(t.sql, repairers, count)]);

  const pending = await t.sql<{ id: string }[]>`select id from webhook_deliveries where tenant_id = ${tenant.tenantId} and status = 'pending'`;
  assert.equal(pending.length, 3, 'one delivery per event: recibido and en_proceso of one document, recibido of the other');
  for (const d of pending) {
    const [row] = await t.sql<{ n: number }[]>`select count(*)::int as n from jobs where unique_key = ${`delivery:${d.id}`}`;
    assert.equal(row?.n, 1, `delivery ${d.id} has one job`);
  }
  assert.ok((await documentJob('document.poll', polled)) !== undefined, 'the document waiting for its verdict has its poll job');
  assert.ok((await documentJob('document.submit', queued)) !== undefined, 'the document waiting to be sent has its submission job');
  assert.deepEqual(Object.fromEntries(added), { 'webhook.deliver': 3, 'document.submit': 1, 'document.poll': 1 }, 'each job counted once');

  const again = new Map<string, number>();
  await repairMissingJobs(t.sql, repairers, (kind, n) => void again.set(kind, (again.get(kind) ?? 0) + n));
  assert.deepEqual(Object.fromEntries(again), {}, 'a run with nothing missing adds nothing');
});
