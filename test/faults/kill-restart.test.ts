import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { newTenantWithCertificate } from '../helpers/certificates.ts';
import { ecfFor } from '../helpers/documents.ts';
import { call } from '../helpers/http.ts';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances } from './helpers/instances.ts';
import { assertAllAccepted, assertCompleteHistories, assertEveryEventDelivered, deliveryRecords, documentRecords, waitUntilSettled } from './helpers/ledger.ts';
import { startSharedSimulator, type SharedSimulator } from './helpers/simulator.ts';

// kill -9 while documents are being submitted and webhooks delivered, then a new process
// on the same database: every document and delivery must still reach its end, and the
// only duplicates a receiver may see are attempts whose outcome died with the process.
// Uploads DGII received but whose answer died with the process are found again by their
// eNCF: every document is accepted, and DGII receives each exactly once.

const DOCUMENTS = 30;
const RECEIVER_DELAY_MS = 200;
/** Uploads received by DGII whose answers are lost with the killed process: the 10th and 11th. */
const FIRST_HELD_UPLOAD = 10;
const HELD_UPLOADS = 2;

let db: TestDatabase;
let sim: SharedSimulator;
let receiver: Receiver;
before(async () => {
  db = await faultDatabase();
  sim = await startSharedSimulator(400, { hold: true });
  receiver = await startReceiver({ respond: () => ({ status: 204, delayMs: RECEIVER_DELAY_MS }) });
});
after(async () => {
  await stopAllInstances();
  await receiver?.close();
  await sim?.close();
  await db?.close();
});

interface EmitOutcome {
  key: string;
  id: string | null;
}

/** POSTs with an Idempotency-Key until the service answers 202 (retrying 409 IN_USE); null when the process is unreachable. */
async function emit(url: string, apiKey: string, rnc: string, key: string, persist: boolean): Promise<string | null> {
  for (;;) {
    let res;
    try {
      res = await call(url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(rnc), headers: { 'x-api-key': apiKey, 'idempotency-key': key } });
    } catch {
      if (!persist) return null;
      await sleep(100);
      continue;
    }
    if (res.status === 202) return res.body.data.internalTrackId as string;
    if (res.status === 409 && res.body?.error?.code === 'IDEMPOTENCY_KEY_IN_USE') {
      await sleep(200);
      continue;
    }
    throw new Error(`emit ${key}: ${res.status} ${res.text}`);
  }
}

test('kill -9 during submissions and deliveries loses nothing and duplicates only attempts in flight', async (t) => {
  const env = await faultEnv(db.url, {
    ...sim.env,
    // Longer than the few hundred ms between the held webhook request and the kill, so the
    // first process cannot retake (and answer) its own job meanwhile; short enough that the
    // second one takes the killed process's jobs over soon.
    QUEUE_LEASE_MS: '4000',
    IDEMPOTENCY_LEASE_SECONDS: '2',
    WEBHOOK_RETRY_DELAYS_MS: '100,200,400,800,1600',
    // A quick receiver's tenant may have half of these in flight (docs/webhooks.md): 10, as its limit.
    WEBHOOK_CONCURRENCY: '20',
  });
  const first = await startInstance(env);
  const tenant = await newTenantWithCertificate(first.url);
  const put = await call(first.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: receiver.url }, headers: { authorization: `Bearer ${tenant.accessToken}` } });
  assert.equal(put.status, 200, put.text);

  // Held up front, so they happen whatever the pace: DGII receives two uploads whose answers
  // the forwarder keeps until the process waiting for them is killed.
  const held = sim.hold!.holdUploads(FIRST_HELD_UPLOAD, HELD_UPLOADS);

  // Two clients emit in a stream (all but the last document); the process is killed under them.
  const outcomes: EmitOutcome[] = Array.from({ length: DOCUMENTS }, (_, i) => ({ key: `kill-${i}`, id: null }));
  let next = 0;
  let killed = false;
  const emitter = async () => {
    while (next < DOCUMENTS - 1 && !killed) {
      const o = outcomes[next++] as EmitOutcome;
      o.id = await emit(first.url, tenant.apiKey, tenant.rnc, o.key, false);
      await sleep(40);
    }
  };
  const emitting = Promise.all([emitter(), emitter()]);
  await held;
  await waitFor(async () => receiver.received.length >= 1, 30_000, 'deliveries flowing');

  // The receiver keeps the next webhook request open, unanswered; the last document's events
  // guarantee there is a next one. The kill comes while it waits for the answer.
  let awaitingAnswer: Received | null = null;
  const answer = receiver.respond;
  receiver.respond = (req, index) => {
    if (awaitingAnswer !== null) return answer(req, index);
    awaitingAnswer = req;
    return 'hang';
  };
  const last = outcomes[DOCUMENTS - 1] as EmitOutcome;
  last.id = await emit(first.url, tenant.apiKey, tenant.rnc, last.key, false);
  await waitFor(async () => awaitingAnswer !== null, 30_000, 'a webhook request held open by the receiver');
  killed = true;
  await first.kill();
  const killedAt = Date.now();
  receiver.respond = answer;
  await emitting;
  const atKill = await db.db.sql<{ id: string; estado: string }[]>`select id, estado from documents where tenant_id = ${tenant.tenantId}`;
  const unfinishedAtKill = atKill.filter((d) => d.estado === 'recibido' || d.estado === 'en_proceso').length;
  const receivedBeforeKill = receiver.received.length;
  assert.ok(unfinishedAtKill > 0, `a document was still being submitted or polled at the kill (${atKill.length} stored)`);

  const restartedAt = Date.now();
  const second = await startInstance(env);
  // Emits the client could not confirm are retried with the same key: each key ends as one document.
  for (const o of outcomes) o.id = await emit(second.url, tenant.apiKey, tenant.rnc, o.key, true);
  await waitUntilSettled(db.db.sql, [tenant.tenantId], 90_000);

  const ids = outcomes.map((o) => o.id);
  assert.equal(new Set(ids).size, DOCUMENTS, 'every Idempotency-Key names its own document');
  const docs = await documentRecords(db.db.sql, [tenant.tenantId]);
  assert.deepEqual(docs.map((d) => d.id).sort(), [...ids].sort(), 'exactly the emitted documents exist');
  assertCompleteHistories(docs);
  assertAllAccepted(docs);
  for (const d of docs) {
    assert.deepEqual(sim.simulator.trackIdsOf('TesteCF', d.rncEmisor, d.encf), [d.trackId], `document ${d.id} reached DGII once, under the trackId it carries`);
  }
  const recovered = [first, second].flatMap((i) => i.process.output.join('').split('\n')).filter((l) => l.includes('the authority already holds this document')).length;
  assert.ok(recovered >= HELD_UPLOADS, `the uploads whose answers were lost were found again (${recovered})`);

  const ledger = await deliveryRecords(db.db.sql, [tenant.tenantId]);
  // Status updates only: each accepted document's buyer leg adds an ecf.receptor_update as well.
  const [statusEvents] = await db.db.sql<{ n: number }[]>`select count(*)::int as n from events where tenant_id = ${tenant.tenantId} and kind = 'ecf.status_update'`;
  assert.equal(statusEvents?.n, docs.reduce((n, d) => n + d.history.length, 0), 'one status event per history row');
  const deliveries = assertEveryEventDelivered(ledger);
  const bodies = new Map((await db.db.sql<{ id: string; body: string }[]>`
    select d.id, e.body from webhook_deliveries d join events e on e.id = d.event_id where d.tenant_id = ${tenant.tenantId}`).map((r) => [r.id, r.body]));

  const receipts = new Map<string, typeof receiver.received>();
  for (const r of receiver.received) {
    const id = String(r.headers['x-ecf-delivery-id']);
    receipts.set(id, [...(receipts.get(id) ?? []), r]);
  }
  let duplicates = 0;
  for (const [id, d] of deliveries) {
    const got = receipts.get(id) ?? [];
    assert.ok(got.length >= 1, `delivery ${id} reached the receiver`);
    for (const r of got) assert.equal(r.raw.toString('utf8'), bodies.get(id), `delivery ${id} carries its event's body`);
    assert.deepEqual(d.attempts, [{ number: 1, ok: true }], `delivery ${id} has one recorded attempt, successful`);
    if (got.length === 1) continue;
    duplicates++;
    // The only acceptable duplicate: an attempt the killed process made but never recorded.
    assert.equal(got.length, 2, `delivery ${id} received at most twice`);
    const [early, late] = got as [(typeof got)[0], (typeof got)[0]];
    assert.ok(early.at <= killedAt && late.at >= restartedAt, `delivery ${id}: first receipt before the kill, second after the restart`);
    assert.deepEqual([early.headers['x-ecf-delivery-attempt'], late.headers['x-ecf-delivery-attempt']], ['1', '1'], `delivery ${id}: the first attempt was never recorded`);
  }
  assert.equal(receipts.size, deliveries.size, 'the receiver saw no delivery the database does not know');
  const heldOpen = (awaitingAnswer as Received | null)?.headers['x-ecf-delivery-id'];
  assert.equal(receipts.get(String(heldOpen))?.length, 2, `the delivery held unanswered at the kill (${String(heldOpen)}) was made again after the restart`);
  // At most WEBHOOK_MAX_IN_FLIGHT_PER_TENANT (10), or half of WEBHOOK_CONCURRENCY (20) while its
  // receiver answers quickly, attempts of one tenant run at once.
  assert.ok(duplicates <= 10, `duplicates (${duplicates}) bounded by the attempts that could be in flight at the kill`);

  // Periodic jobs (maintenance.*, sequences.expiry) reschedule themselves for ever; the buyer
  // legs of the last documents accepted may still be finishing.
  const left = await waitFor(async () => {
    const rows = await db.db.sql<{ kind: string }[]>`select kind from jobs where kind not like 'maintenance.%' and kind <> 'sequences.expiry'`;
    return rows.length === 0 ? rows : undefined;
  }, 20_000, 'no job left behind').catch(async () => db.db.sql<{ kind: string }[]>`select kind from jobs where kind not like 'maintenance.%' and kind <> 'sequences.expiry'`);
  assert.deepEqual(left.map((j) => j.kind), [], 'no job left behind');
  t.diagnostic(`stored at kill ${atKill.length}, unfinished ${unfinishedAtKill}, receipts before kill ${receivedBeforeKill} (one held unanswered), duplicates ${duplicates}, submissions found again ${recovered}`);
  assert.equal(await second.stop(), 0);
});

test('an attempt and its delivery\'s new state are written together, so a crash between them cannot drop the attempt', async () => {
  // A trigger fails the attempt's row for one receiver path: the delivery must not be
  // marked delivered without it (a process killed between two statements did exactly that).
  const instance = await startInstance(await faultEnv(db.url, { ...sim.env, WEBHOOK_RETRY_DELAYS_MS: '100,200,400,800,1600' }));
  await db.db.sql.unsafe(`
    create function faults_refuse_attempt() returns trigger language plpgsql as $$
    begin raise exception 'attempt refused by the test'; end $$;
    create trigger faults_refuse_attempt before insert on webhook_attempts
      for each row when (new.url like '%/atomic%') execute function faults_refuse_attempt();`);
  const atomic = await startReceiver({ path: '/atomic' });
  try {
    const tenant = await newTenantWithCertificate(instance.url);
    await call(instance.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: atomic.url }, headers: { authorization: `Bearer ${tenant.accessToken}` } });
    const id = await emit(instance.url, tenant.apiKey, tenant.rnc, 'atomic-1', false);
    assert.ok(id !== null);
    await waitFor(async () => atomic.received.length >= 2, 20_000, 'attempts made');
    const refused = await db.db.sql<{ status: string; attemptCount: number }[]>`
      select status, attempt_count from webhook_deliveries where tenant_id = ${tenant.tenantId}`;
    assert.ok(refused.length > 0);
    for (const d of refused) assert.deepEqual(d, { status: 'pending', attemptCount: 0 }, 'an attempt that could not be recorded changed nothing');

    await db.db.sql.unsafe('drop trigger faults_refuse_attempt on webhook_attempts');
    await waitUntilSettled(db.db.sql, [tenant.tenantId], 30_000);
    const ledger = await deliveryRecords(db.db.sql, [tenant.tenantId]);
    for (const d of assertEveryEventDelivered(ledger).values()) assert.deepEqual(d.attempts, [{ number: 1, ok: true }]);
    assert.equal(await instance.stop(), 0);
  } finally {
    await db.db.sql.unsafe('drop trigger if exists faults_refuse_attempt on webhook_attempts; drop function if exists faults_refuse_attempt()');
    await atomic.close();
  }
});
