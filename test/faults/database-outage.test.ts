import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { isDatabaseUnavailable } from '../../src/db/errors.ts';
import { createLogger } from '../../src/log.ts';
import { newTenantWithCertificate } from '../helpers/certificates.ts';
import { ecfFor } from '../helpers/documents.ts';
import { call } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';
import { assertAllAccepted, assertCompleteHistories, assertEveryEventDelivered, deliveryRecords, documentRecords, waitUntilSettled } from './helpers/ledger.ts';
import { TcpProxy } from './helpers/tcp-proxy.ts';
import { timedRequest, type Outcome, type TimedRequest } from './helpers/timed-request.ts';

// The service reaches PostgreSQL through a proxy the test cuts under load: while the
// database is away requests answer 503 quickly and the process stays up; once it is back
// the same process serves again and finishes the background work, with nothing lost.

const CLIENT_TIMEOUT_MS = 10_000;
/**
 * "Quickly": a failure while the database is away, or recovery once it is back. Without the
 * service's reconnect backoff (src/db/connect.ts) the driver's own grows to 10–20 s after a
 * few failures, so a bound of a few seconds shows which one is in force; the exact figure is
 * not the point, and a loaded 2-core CI machine needs the room.
 */
const QUICK_MS = 5_000;
const CLIENTS = 4;
const DOWN_MS = 4_000;
/** Requests that straddle the cut may go either way; after it, everything must be 503. */
const SETTLE_MS = 300;

let db: TestDatabase;
let proxy: TcpProxy;
let receiver: Receiver;
before(async () => {
  db = await faultDatabase();
  const server = new URL(db.url);
  proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port || 5432) });
  receiver = await startReceiver();
});
after(async () => {
  await stopAllInstances();
  await receiver?.close();
  await proxy?.close();
  await db?.close();
});

test('a transaction whose connection is cut fails with a connection error; the process survives and the pool reconnects', async () => {
  // The driver's own begin() wrote its ROLLBACK to the closed socket from a setImmediate
  // callback and killed the process (src/db/transaction.ts).
  const direct = await openDatabase(loadConfig({ DATABASE_URL: proxy.rewrite(db.url) }), createLogger('silent'));
  try {
    const cut = sleep(200).then(() => proxy.cut());
    await assert.rejects(direct.sql.begin(async (tx) => tx`select pg_sleep(2)`), (err: unknown) => isDatabaseUnavailable(err));
    await cut;
    await sleep(50);
    // While it is away, every query fails quickly, however many times it has failed before.
    for (let i = 0; i < 8; i++) {
      const started = Date.now();
      await assert.rejects(direct.sql`select 1`, (err: unknown) => isDatabaseUnavailable(err));
      assert.ok(Date.now() - started < QUICK_MS, `query ${i + 1} failed within ${QUICK_MS} ms (${Date.now() - started} ms)`);
    }
    await proxy.restore();
    const started = Date.now();
    const [row] = await direct.sql<{ n: number }[]>`select 1 as n`;
    assert.equal(row?.n, 1);
    assert.ok(Date.now() - started < QUICK_MS, `reconnected within ${QUICK_MS} ms (${Date.now() - started} ms)`);
    const [committed] = await direct.sql.begin(async (tx) => tx<{ n: number }[]>`select 2 as n`);
    assert.equal(committed?.n, 2, 'transactions work again');
  } finally {
    await proxy.restore();
    await direct.close();
  }
});

interface Load {
  outcomes: Outcome[];
  /** Idempotency-Key of every emit sent. */
  keys: string[];
  stop(): Promise<void>;
}

/** CLIENTS loops of emit, list and read until stopped, every outcome kept. */
function steadyLoad(instance: Instance, headers: Record<string, string>, rnc: string, ids: string[]): Load {
  const outcomes: Outcome[] = [];
  const keys: string[] = [];
  let running = true;
  const loop = async (client: number) => {
    for (let i = 0; running; i++) {
      const known = ids[(client + i) % Math.max(ids.length, 1)];
      const requests: TimedRequest[] = [
        { label: 'emit', method: 'POST', path: '/TesteCF/documentos-ecf', headers: { ...headers, 'idempotency-key': `outage-${client}-${i}` }, json: ecfFor(rnc) },
        { label: 'list', method: 'GET', path: '/TesteCF/documentos-ecf?pageSize=5', headers },
        ...(known === undefined ? [] : [{ label: 'read', method: 'GET', path: `/TesteCF/documentos-ecf/${known}`, headers }]),
      ];
      const r = requests[i % requests.length] as TimedRequest;
      if (r.label === 'emit') keys.push(r.headers?.['idempotency-key'] as string);
      const outcome = await timedRequest(instance.url, r, CLIENT_TIMEOUT_MS);
      outcomes.push(outcome);
      if (outcome.status === 202) ids.push((outcome.body as { data: { internalTrackId: string } }).data.internalTrackId);
      await sleep(outcome.status === 503 ? 50 : 10);
    }
  };
  const loops = Array.from({ length: CLIENTS }, (_, c) => loop(c));
  return { outcomes, keys, stop: async () => { running = false; await Promise.all(loops); } };
}

test('a database outage under load answers 503, keeps the process up, and recovers by itself with nothing lost', async (t) => {
  const env = await faultEnv(proxy.rewrite(db.url), { QUEUE_LEASE_MS: '3000', IDEMPOTENCY_LEASE_SECONDS: '3', DB_POOL_MAX: '8' });
  const instance = await startInstance(env);
  const tenant = await newTenantWithCertificate(instance.url);
  const bearer = { authorization: `Bearer ${tenant.accessToken}` };
  assert.equal((await call(instance.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: receiver.url }, headers: bearer })).status, 200);
  const headers = { 'x-api-key': tenant.apiKey };

  const ids: string[] = [];
  const load = steadyLoad(instance, headers, tenant.rnc, ids);
  // Enough traffic before the cut, however slow the machine is today.
  await waitFor(async () => load.outcomes.length >= 30, 30_000, 'requests before the cut');

  const cutAt = Date.now();
  await proxy.cut();
  // The test's own connection does not go through the proxy.
  const [{ underWay } = { underWay: 0 }] = await db.db.sql<{ underWay: number }[]>`select count(*)::int as under_way from documents where estado = 'recibido'`;
  await sleep(SETTLE_MS + 500);
  const probes = {
    ready: await timedRequest(instance.url, { label: 'readyz', method: 'GET', path: '/readyz' }, CLIENT_TIMEOUT_MS),
    health: await timedRequest(instance.url, { label: 'healthz', method: 'GET', path: '/healthz' }, CLIENT_TIMEOUT_MS),
    metrics: await timedRequest(instance.url, { label: 'metrics', method: 'GET', path: '/metrics' }, CLIENT_TIMEOUT_MS),
  };
  await sleep(Math.max(0, cutAt + DOWN_MS - Date.now()));
  // And until each client has had answers to requests sent once the cut had settled: a 503
  // takes a second or two (the pool's reconnect backoff), longer on a loaded machine, and
  // with a fixed outage every request could straddle the restore, leaving none to judge.
  await waitFor(async () => load.outcomes.filter((o) => o.startedAt >= cutAt + SETTLE_MS).length >= CLIENTS, 30_000, 'answers while the database is away');
  const restoredAt = Date.now();
  await proxy.restore();
  await waitFor(async () => load.outcomes.filter((o) => o.startedAt >= restoredAt && o.status < 300).length >= 40, 30_000, 'requests after the restore');
  await load.stop();

  assert.equal(probes.ready.status, 503, 'readyz is 503 while the database is away');
  assert.equal(probes.ready.code, 'SERVICE_UNAVAILABLE');
  assert.equal(probes.health.status, 200, 'healthz stays 200: the process is alive');
  assert.equal(instance.process.child.exitCode, null, 'the process never exited');
  // The in-memory request counters stay scrapeable while the database-derived gauges cannot be read.
  assert.equal(probes.metrics.status, 200, `metrics while the database is away: ${String(probes.metrics.body).slice(0, 300)}`);
  const scraped = String(probes.metrics.body);
  assert.match(scraped, /^ecf_database_up 0$/m);
  const counted503 = [...scraped.matchAll(/^ecf_http_requests_total\{method="[A-Z]+",route="[^"]+",status="503"\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  assert.ok(counted503 > 0, 'the 503s answered during the outage are counted');
  assert.match(scraped, /^ecf_http_requests_total\{method="POST",route="\/\{env\}\/documentos-ecf",status="202"\} \d+$/m, 'and the requests served before it');
  assert.doesNotMatch(scraped, /^ecf_jobs_queued\{/m);

  const { outcomes } = load;
  const failures = outcomes.filter((o) => o.failure !== null || (o.status !== 503 && o.status >= 500) || ![200, 202, 503].includes(o.status));
  const slowLog = instance.process.output.join('').split('\n').filter((l) => /"ms":[0-9]{4,}/.test(l) || l.includes('unhandled')).slice(0, 8).join('\n');
  const when = (o: Outcome) => `started ${o.startedAt - cutAt} ms after the cut (restored at ${restoredAt - cutAt} ms)`;
  assert.deepEqual(failures.map((o) => `${o.label} ${o.status} ${o.code ?? ''} ${o.failure ?? ''} ${when(o)}`), [], slowLog + 'every answer is 2xx or 503, none hangs past the client timeout');
  for (const o of outcomes.filter((x) => x.status === 503)) assert.equal(o.code, 'SERVICE_UNAVAILABLE');
  const before = outcomes.filter((o) => o.endedAt < cutAt);
  const down = outcomes.filter((o) => o.startedAt >= cutAt + SETTLE_MS && o.endedAt <= restoredAt);
  assert.ok(before.length > 20 && before.every((o) => o.status < 300), `before the cut everything succeeds (${before.length} requests)`);
  assert.ok(down.length >= CLIENTS, `requests kept coming while the database was away (${down.length})`);
  assert.deepEqual([...new Set(down.map((o) => `${o.status} ${o.code}`))], ['503 SERVICE_UNAVAILABLE'], 'while it is away every request is 503');
  const slowest = Math.max(...down.map((o) => o.endedAt - o.startedAt));
  assert.ok(slowest < QUICK_MS, `a 503 comes quickly (slowest ${slowest} ms, bound ${QUICK_MS} ms)`);

  const recovered = outcomes.filter((o) => o.startedAt >= restoredAt && o.status < 300).sort((a, b) => a.endedAt - b.endedAt)[0];
  assert.ok(recovered !== undefined, 'requests succeed again after the database is back');
  const recoveryMs = recovered.endedAt - restoredAt;
  assert.ok(recoveryMs < QUICK_MS, `recovered within ${QUICK_MS} ms (${recoveryMs} ms)`);
  const late = outcomes.filter((o) => o.startedAt > recovered.endedAt);
  assert.ok(late.length > 20 && late.every((o) => o.status < 300), `once recovered, every request succeeds (${late.filter((o) => o.status >= 300).length} of ${late.length} did not)`);
  assert.equal((await call(instance.url, 'GET', '/readyz')).status, 200);
  assert.match((await call(instance.url, 'GET', '/metrics')).text, /^ecf_database_up 1$/m);

  // Emits that got 503 (or straddled the cut) are retried with their key: each key ends as one document.
  const byKey = new Map<string, string>();
  for (const key of load.keys) {
    for (;;) {
      const res = await call(instance.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers: { ...headers, 'idempotency-key': key } });
      if (res.status === 202) {
        byKey.set(key, res.body.data.internalTrackId as string);
        break;
      }
      assert.equal(res.body?.error?.code, 'IDEMPOTENCY_KEY_IN_USE', `retry of ${key}: ${res.status} ${res.text}`);
      await sleep(250);
    }
  }
  await waitUntilSettled(db.db.sql, [tenant.tenantId], 60_000);
  const docs = await documentRecords(db.db.sql, [tenant.tenantId]);
  assert.equal(new Set(byKey.values()).size, load.keys.length, 'every key names its own document');
  assert.deepEqual(docs.map((d) => d.id).sort(), [...byKey.values()].sort(), 'exactly one document per key: none lost, none doubled');
  const kept = new Set(byKey.values());
  for (const id of ids) assert.ok(kept.has(id), `document ${id}, accepted during the run, is kept under its key`);
  assertCompleteHistories(docs);
  // Uploads whose trackId could not be stored while the database was away are found again by eNCF.
  assertAllAccepted(docs);
  const foundAgain = instance.process.output.join('').split('\n').filter((l) => l.includes('the authority already holds this document')).length;
  assertEveryEventDelivered(await deliveryRecords(db.db.sql, [tenant.tenantId]));
  assert.ok(!instance.process.output.join('').includes('"msg":"unhandled error"'), 'no request failed with an unexpected error');
  await waitFor(async () => instance.process.child.exitCode === null, 1_000);

  const count = (o: Outcome[], s: (x: Outcome) => boolean) => o.filter(s).length;
  t.diagnostic(`${outcomes.length} requests: ${count(outcomes, (o) => o.status < 300)} ok, ${count(outcomes, (o) => o.status === 503)} × 503; down ${down.length} (slowest ${slowest} ms); recovered ${recoveryMs} ms after the restore; ${docs.length} documents (${underWay} being submitted at the cut, ${foundAgain} found again after a lost answer); proxy connections ${proxy.accepted}`);
  assert.equal(await instance.stop(), 0);
});
