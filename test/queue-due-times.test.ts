import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { insertJob } from '../src/queue/queries.ts';
import { WorkerRuntime, type JobDefinitions } from '../src/queue/runtime.ts';
import { Sleeper } from '../src/queue/sleeper.ts';
import { countingClaims } from './helpers/claims.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, client } from './helpers/http.ts';
import { startReceiver } from './helpers/receiver.ts';
import { startTestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// A runtime claims a job this process scheduled for later when it falls due, not at its next
// poll: each runtime here polls once a minute, so a job run within seconds was claimed at its
// due time, and the claims counted show that none was spent finding nothing meanwhile.

const log = createLogger('silent');
const MINUTE = { pollIntervalMs: 60_000, batchSize: 10, concurrency: 10, leaseMs: 30_000 };
let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, log);
});
after(() => t.close());
beforeEach(async () => {
  await t.db.sql`delete from jobs`;
});

const runtimes: WorkerRuntime[] = [];
afterEach(() => Promise.all(runtimes.splice(0).map((r) => r.stop(1000))));

/** A runtime whose claims are counted (helpers/claims.ts); stopped after the test. */
function countedRuntime(definitions: JobDefinitions): { runtime: WorkerRuntime; claims: () => number } {
  const counted = countingClaims(t.db.sql);
  const runtime = new WorkerRuntime(counted.sql, log, MINUTE, definitions);
  runtimes.push(runtime);
  return { runtime, claims: counted.claims };
}

describe('claims at a job\'s due time', () => {
  test('a job a handler scheduled for later is claimed when due, without claims meanwhile', async () => {
    const runs: { n: number; at: number }[] = [];
    let scheduledAt = 0;
    const { runtime, claims } = countedRuntime({
      noop: {
        async run(job, ctx) {
          runs.push({ n: Number(job.payload.n), at: performance.now() });
          if (job.payload.n !== 1) return;
          await insertJob(t.db.sql, { kind: 'noop', payload: { n: 2 }, delayMs: 400 });
          scheduledAt = performance.now();
          ctx.scheduled(400);
        },
      },
    });
    await insertJob(t.db.sql, { kind: 'noop', payload: { n: 1 } });
    runtime.start();
    await waitFor(() => runs.length === 2, 10_000, 'the job scheduled for later');
    const second = runs[1];
    assert.equal(second?.n, 2);
    assert.ok(second.at - scheduledAt >= 350, `run ${Math.round(second.at - scheduledAt)} ms after it was scheduled for 400`);
    // The first claim, and the one at the due time (a claim a moment early finds it when polled
    // again, a minute later, and the wait above fails).
    assert.equal(claims(), 2);
  });

  test('a planned wait a handler returns is claimed when due', async () => {
    const runs: number[] = [];
    const { runtime, claims } = countedRuntime({
      noop: {
        async run() {
          runs.push(performance.now());
          if (runs.length === 1) return { retryIn: 300 };
        },
      },
    });
    await insertJob(t.db.sql, { kind: 'noop', payload: {} });
    runtime.start();
    await waitFor(() => runs.length === 2, 10_000, 'the planned wait');
    assert.ok((runs[1] as number) - (runs[0] as number) >= 250);
    assert.equal(claims(), 2);
  });

  test('a failed job\'s next attempt is claimed when its backoff ends', async () => {
    let attempts = 0;
    const { runtime } = countedRuntime({
      noop: {
        policy: { maxAttempts: 3, backoffBaseMs: 200, backoffMaxMs: 400 },
        async run() {
          attempts++;
          if (attempts === 1) throw new Error('first attempt fails');
        },
      },
    });
    await insertJob(t.db.sql, { kind: 'noop', payload: {} });
    runtime.start();
    await waitFor(() => attempts === 2, 10_000, 'the second attempt');
  });
});

test('a document\'s first status query is claimed when due, by a queue polling once a minute', async () => {
  // The submission's job schedules the status query (DGII_POLL_INTERVAL_MS, 40 ms) with the
  // document's move to en_proceso; the later queries are planned waits of the query's own job.
  const service = await startTestService({ env: { ...FAST_PIPELINE, QUEUE_POLL_INTERVAL_MS: '60000' } });
  try {
    const a = await newTenantWithCertificate(service.url);
    const res = await call(service.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    assert.equal(res.status, 202, res.text);
    const doc = await waitForEstado(service.url, 'TesteCF', res.body.data.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado'], 10_000);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'en_proceso', 'aceptado']);
  } finally {
    await service.close();
  }
});

test('a nudge for a job whose group has its limit held makes no claim; one for another group does', async () => {
  const running: string[] = [];
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { runtime, claims } = countedRuntime({
    noop: {
      group: { by: 'g', limit: 1 },
      async run(job) {
        running.push(String(job.payload.g));
        await gate;
      },
    },
  });
  try {
    // One claim brings all three of group a: one runs, two are held, so a is full.
    for (let n = 0; n < 3; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { g: 'a', n } });
    runtime.start();
    await waitFor(() => running.length === 1, 10_000, 'a job of group a running');
    assert.equal(claims(), 1);
    await insertJob(t.db.sql, { kind: 'noop', payload: { g: 'a', n: 3 } });
    runtime.nudgeFor('noop', { g: 'a', n: 3 });
    await sleep(300);
    assert.equal(claims(), 1, 'no claim for a job of the full group');
    await insertJob(t.db.sql, { kind: 'noop', payload: { g: 'b', n: 0 } });
    runtime.nudgeFor('noop', { g: 'b', n: 0 });
    await waitFor(() => running.includes('b'), 10_000, 'the job of group b claimed at once');
    assert.equal(claims(), 2);
  } finally {
    release();
  }
});

test('a state change\'s webhooks are claimed at once, by a delivery queue polling once a minute', async () => {
  const service = await startTestService({ env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '60000' } });
  const receiver = await startReceiver();
  try {
    const a = await newTenantWithCertificate(service.url);
    const api = client(service.url, { authorization: `Bearer ${a.accessToken}` });
    assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: receiver.url } })).status, 200);
    const res = await call(service.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    assert.equal(res.status, 202, res.text);
    // created, en_proceso, aceptado (the buyer leg's event follows: not waited for here).
    await waitFor(() => receiver.received.length >= 3, 10_000, 'the three webhooks of an accepted document');
  } finally {
    await receiver.close();
    await service.close();
  }
});

describe('Sleeper', () => {
  test('a due time ends a sleep under way at that time', async () => {
    const sleeper = new Sleeper();
    const started = performance.now();
    const slept = sleeper.sleep(60_000);
    sleeper.dueIn(100);
    await slept;
    const took = performance.now() - started;
    assert.ok(took >= 100 && took < 5_000, `slept ${Math.round(took)} ms`);
  });

  test('a due time given between sleeps ends the next one, and is dropped once awake past it', async () => {
    const sleeper = new Sleeper();
    sleeper.dueIn(50);
    await sleep(80);
    sleeper.awake();
    assert.equal(sleeper.pending, 0);
    sleeper.dueIn(100);
    const started = performance.now();
    await sleeper.sleep(60_000);
    assert.ok(performance.now() - started < 5_000);
  });

  test('a job due now is a nudge: the next sleep is skipped', async () => {
    const sleeper = new Sleeper();
    sleeper.dueIn(0);
    assert.equal(sleeper.pending, 0);
    const started = performance.now();
    await sleeper.sleep(60_000);
    assert.ok(performance.now() - started < 1_000);
  });

  test('a nudge before a claim starts is that claim\'s to answer: the sleep after it is not skipped', async () => {
    const sleeper = new Sleeper();
    sleeper.nudge(); // a job finished while no one slept
    sleeper.claimStarts();
    const started = performance.now();
    await sleeper.sleep(150);
    assert.ok(performance.now() - started >= 140, `slept ${Math.round(performance.now() - started)} ms`);
    sleeper.claimStarts();
    sleeper.nudge(); // one during the claim still skips the sleep after it
    const again = performance.now();
    await sleeper.sleep(60_000);
    assert.ok(performance.now() - again < 1_000);
  });

  test('jobs due together make one entry, far-ahead ones are left to polling, and the entries are bounded', () => {
    const sleeper = new Sleeper();
    sleeper.dueIn(30_000);
    sleeper.dueIn(30_000);
    assert.ok(sleeper.pending <= 2, 'two times a moment apart share a grain or two');
    const kept = sleeper.pending;
    sleeper.dueIn(3_600_000);
    assert.equal(sleeper.pending, kept, 'a retry an hour ahead is not kept');
    for (let i = 1; i <= 5_000; i++) sleeper.dueIn(i * 10);
    assert.equal(sleeper.pending, 1024);
  });
});
