import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database, type Sql } from '../src/db/connect.ts';
import { TransactionLanes, type OpenLane } from '../src/db/transaction.ts';
import { createLogger } from '../src/log.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { createTestDatabase, SERVER_URL, type TestDatabase } from './helpers/db.ts';
import { ecfFor, FAST_PIPELINE } from './helpers/documents.ts';
import { call } from './helpers/http.ts';
import { embeddedLaneDriver, isTransactionStatement, openTransactions, type LaneDriver } from './helpers/lanes.ts';
import { startReceiver } from './helpers/receiver.ts';
import { startTestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// postgres 3.4.9's sql.begin could send BEGIN on a pooled connection it had not reserved:
// the transaction then swallowed everyone's later statements on that connection, answered
// as done and lost when it closed (src/db/transaction.ts). These tests drive the driver to
// exactly those places and check that nothing is lost and no transaction leaks.

/** The driver's default max_pipeline: queries sent on one connection before it is "full". */
const MAX_PIPELINE = 100;

let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
  await t.db.sql`create table probe (id serial primary key, test text not null, note text not null)`;
});
after(async () => {
  await t?.close();
});

/** A database of its own on the server (closed by the test), or the shared embedded one. */
async function poolOf(dbPoolMax: number): Promise<{ db: Database; own: boolean }> {
  if (SERVER_URL === null) return { db: t.db, own: false };
  return { db: await openDatabase(loadConfig({ DATABASE_URL: t.url, DB_POOL_MAX: String(dbPoolMax) }), createLogger('silent')), own: true };
}

async function notes(test: string): Promise<string[]> {
  const rows = await t.db.sql<{ note: string }[]>`select note from probe where test = ${test} order by id`;
  return rows.map((r) => (r.note.length > 40 ? `${r.note.length} characters` : r.note));
}

test('a transaction sent when every pooled connection has a full pipeline commits, and no write after it is lost', async () => {
  const { db, own } = await poolOf(2);
  const sql = db.sql;
  const sent: string[] = [];
  sql.options.debug = (_connection, text) => void sent.push(text);
  try {
    const connections = sql.options.max;
    // Every connection open and idle, so that the pool hands them out in turn.
    await Promise.all(Array.from({ length: connections }, () => sql`select pg_sleep(0.05)`));
    const boundary = MAX_PIPELINE * connections;
    const transactions: Promise<unknown>[] = [];
    const singles: Promise<unknown>[] = [];
    for (let i = 0; i < boundary + 50; i++) {
      if (Math.abs(i - boundary) <= 1) transactions.push(sql.begin((tx) => tx`insert into probe (test, note) values ('pipeline', ${`transaction ${i}`})`));
      else singles.push(sql`select 1`.execute());
    }
    const outcomes = await Promise.allSettled(transactions);
    assert.deepEqual(outcomes.map((o) => (o.status === 'fulfilled' ? 'committed' : String((o.reason as { code?: string }).code ?? o.reason))), ['committed', 'committed', 'committed']);
    await Promise.all(singles);
    await Promise.all(Array.from({ length: 20 }, (_, i) => sql`insert into probe (test, note) values ('pipeline', ${`single ${i}`})`.execute()));
    assert.equal(await openTransactions(t.db.sql), 0, 'no connection is left inside a transaction');
    assert.deepEqual(sent.filter(isTransactionStatement), [], 'the statement pool never sends a transaction statement');
  } finally {
    sql.options.debug = false;
    if (own) await db.close();
  }
  // Read after the pool closed: a write inside a leaked transaction would be gone now.
  const kept = await notes('pipeline');
  assert.equal(kept.length, 23, kept.join(', '));
});

test('a large write inside a transaction lets no other statement into that transaction', async () => {
  // The embedded database's socket emits 'drain' after the insert's answer, which put the
  // transaction's connection back in the pool in the middle of it.
  const sql = t.db.sql;
  let outside: Promise<unknown> = Promise.resolve();
  await assert.rejects(sql.begin(async (tx) => {
    await tx`insert into probe (test, note) values ('drain', ${'x'.repeat(256 * 1024)})`;
    outside = sql`insert into probe (test, note) values ('drain', 'outside the transaction')`.execute();
    await sleep(100);
    throw new Error('rolled back on purpose');
  }), /rolled back on purpose/);
  await outside;
  assert.deepEqual(await notes('drain'), ['outside the transaction']);
});

/** Lanes over the test database, each driver instance kept so the test can reach it. */
async function lanesOver(): Promise<{ lanes: TransactionLanes; opened: postgres.Sql[]; observer: Sql; close(): Promise<void> }> {
  const opened: postgres.Sql[] = [];
  let driver: LaneDriver;
  if (SERVER_URL === null) driver = await embeddedLaneDriver();
  else {
    const url = t.url;
    driver = { open: (onnotice) => postgres(url, { max: 2, fetch_types: false, onnotice }), observer: t.db.sql, close: async () => {} };
  }
  const open: OpenLane = (onnotice) => {
    const sql = driver.open(onnotice);
    opened.push(sql);
    return sql;
  };
  const lanes = new TransactionLanes(1, open);
  return { lanes, opened, observer: driver.observer, close: async () => { await lanes.close(1); await driver.close(); } };
}

test('a lane whose connection reports UNSAFE_TRANSACTION is closed, never reused, and the transaction runs on a fresh one', async () => {
  const { lanes, opened, observer, close } = await lanesOver();
  try {
    await lanes.begin((tx) => tx`select 1`);
    const first = opened[0] as postgres.Sql;
    // Something else (the service never does this) uses the lane's driver: both of its
    // connections open, then their pipelines filled so that the lane's next BEGIN is the
    // one that finds a connection full, and goes out without reserving it.
    await Promise.all([first`select pg_sleep(0.05)`, first`select pg_sleep(0.05)`]);
    // Settled at once: the discarded lane's driver may destroy these queries while the
    // transaction below is still running, and a rejection nobody handles yet fails the test.
    const flood = Promise.allSettled(Array.from({ length: 2 * MAX_PIPELINE }, () => first`select 1`.execute()));
    const [row] = await lanes.begin((tx) => tx<{ ran: string }[]>`select 'ran' as ran`);
    assert.equal(row?.ran, 'ran');
    await flood;
    assert.equal(lanes.discarded, 1, 'the lane was discarded');
    assert.equal(opened.length, 2, 'the transaction ran again on a fresh lane');
    await assert.rejects(first`select 1`, (err: { code?: string }) => err.code === 'CONNECTION_ENDED', 'the discarded lane takes nothing more');
    await waitFor(async () => (await openTransactions(observer)) === 0, 5_000, 'the stray transaction rolled back');
    await lanes.begin((tx) => tx`select 1`);
    assert.equal(opened.length, 2, 'the fresh lane serves the next transaction');
  } finally {
    await close();
  }
});

test('a lane whose server says a BEGIN came inside a transaction is discarded', async () => {
  const { lanes, opened, close } = await lanesOver();
  try {
    await lanes.begin(async (tx) => {
      await tx`begin`;
    });
    assert.equal(lanes.discarded, 1);
    await lanes.begin((tx) => tx`select 1`);
    assert.equal(opened.length, 2, 'the next transaction got a fresh lane');
    await lanes.begin((tx) => tx`select 1`);
    assert.equal(lanes.discarded, 1, 'a lane without such a notice is kept');
  } finally {
    await close();
  }
});

test('a webhook burst through the service sends no transaction statement on the statement pool', async () => {
  const service = await startTestService({ env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  const receiver = await startReceiver({ respond: (_req, i) => ({ status: i % 5 === 0 ? 503 : 204 }) });
  const sent: string[] = [];
  try {
    const tenant = await newTenantWithCertificate(service.url);
    const bearer = { authorization: `Bearer ${tenant.accessToken}` };
    assert.equal((await call(service.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: receiver.url }, headers: bearer })).status, 200);
    service.sql.options.debug = (_connection, text) => void sent.push(text);
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, () => call(service.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers: { 'x-api-key': tenant.apiKey } })),
      ...Array.from({ length: 12 }, () => call(service.url, 'POST', '/api/webhooks/test', { json: {}, headers: bearer })),
    ]);
    assert.deepEqual([...new Set(answers.map((a) => a.status))].sort(), [200, 202]);
    await waitFor(async () => {
      const [row] = await service.sql<{ n: number }[]>`
        select count(*)::int as n from documents where tenant_id = ${tenant.tenantId} and estado not in ('recibido', 'en_proceso')`;
      return row?.n === 12;
    }, 30_000, 'every document decided');
    // 215–256 in runs on this code (an emit is one statement, a finished delivery's job goes
    // with its record); how many polls fall inside the burst varies, so the bound sits well below.
    assert.ok(sent.length > 100, `the statement pool carried the burst's statements (${sent.length})`);
    assert.deepEqual(sent.filter(isTransactionStatement), [], 'and not one of them opens, ends or nests a transaction');
  } finally {
    service.sql.options.debug = false;
    await receiver.close();
    await service.close();
  }
});
