// Queue: the jobs queue's WorkerRuntime (src/queue/) in this process, on a database of its
// own. Enqueue N no-op jobs with insertJob, time one runtime draining them; then the same
// N drained by the plainest SQL loop (claim and delete a batch in one statement, FOR
// UPDATE SKIP LOCKED, same batch size) as the baseline. Then the enqueue→start latency of
// a trickle of jobs, with a nudge after each insert (as emits do) and without one (the
// runtime finds them at its next poll). The peer: graphile-worker 0.18 draining the same
// number of no-op jobs in its own process on the same server, in its default mode and with
// its local queue and batched completion, at the same concurrency and pool size; rounds are
// interleaved and the median round of each is reported.
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.ts';
import type { Sql } from '../../src/db/connect.ts';
import { createLogger } from '../../src/log.ts';
import { insertJob } from '../../src/queue/queries.ts';
import { WorkerRuntime, type RuntimeOptions } from '../../src/queue/runtime.ts';
import { JobWakeups } from '../../src/queue/wakeups.ts';
import type { Database } from '../../src/db/connect.ts';
import { createDatabase } from './lib/database.ts';
import { ensurePeerLibs, peerScript } from './lib/peer-libs.ts';
import { sleep, startPeerScript } from './lib/processes.ts';
import { medianBy, percentile, print, round, setting, verdict } from './lib/report.ts';

const JOBS = setting('BENCH_QUEUE_JOBS', 20_000);
const TRICKLE = setting('BENCH_QUEUE_TRICKLE', 150);
const ENQUEUE_IN_FLIGHT = 32;
const ROUNDS = setting('BENCH_ROUNDS', 3);
/** The runtime's drain ÷ graphile-worker's best mode. */
const TARGET = 1.0;
/**
 * graphile-worker's local queue sizes tried in batched mode: its best is the peer. The default
 * concurrency + 1 is far from its best; at 500 it drained 17,600 jobs/s on a 2-core machine.
 */
const LOCAL_QUEUE_SIZES = (process.env.BENCH_GRAPHILE_LOCAL_QUEUE ?? '51,200,500,1000').split(',').map(Number);
const defaults = loadConfig({});
const options: RuntimeOptions = { ...defaults.queue };
const log = createLogger('warn');

async function enqueue(sql: Sql, n: number): Promise<number> {
  await sql`truncate jobs`;
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: ENQUEUE_IN_FLIGHT }, async () => {
    while (next < n) {
      const i = next++;
      await insertJob(sql, { kind: 'noop', payload: { i } });
    }
  }));
  return n / ((performance.now() - started) / 1000);
}

async function drainWithRuntime(sql: Sql, n: number): Promise<number> {
  let ran = 0;
  let allRan: () => void = () => {};
  const finished = new Promise<void>((resolve) => (allRan = resolve));
  const runtime = new WorkerRuntime(sql, log, options, {
    noop: { run: async () => { if (++ran === n) allRan(); } },
  });
  const started = performance.now();
  runtime.start();
  await finished;
  // The last jobs are deleted just after their run returns.
  while ((await sql<{ n: number }[]>`select count(*)::int as n from jobs`)[0]?.n !== 0) await sleep(5);
  const elapsed = performance.now() - started;
  await runtime.stop(5_000);
  return n / (elapsed / 1000);
}

/** `loops` claim/delete loops at once, as many as the runtime's pool has connections. */
async function drainWithSql(sql: Sql, loops: number): Promise<number> {
  const started = performance.now();
  let n = 0;
  await Promise.all(Array.from({ length: loops }, async () => {
    for (;;) {
      const rows = await sql`
        delete from jobs where id in (
          select id from jobs where run_at <= now() and kind = 'noop'
          order by run_at, id limit ${options.batchSize} for update skip locked)
        returning id, kind, payload`;
      if (rows.length === 0) return;
      n += rows.length;
    }
  }));
  return n / ((performance.now() - started) / 1000);
}

/**
 * Enqueue→start latency (ms) of `count` jobs inserted one at a time, 20–60 ms apart.
 * `mode`: "nudged" calls the runtime's nudge() (an emit on the same instance), "polled"
 * leaves it to the next poll, "notified" enqueues through another instance (`other`, its
 * own pool) that announces the job with NOTIFY, which the runtime's instance listens for.
 */
async function trickle(db: Database, count: number, mode: 'nudged' | 'polled' | 'notified', other?: Database): Promise<number[]> {
  const sql = db.sql;
  await sql`truncate jobs`;
  const enqueuedAt: number[] = [];
  const latencies: number[] = [];
  const runtime = new WorkerRuntime(sql, log, options, {
    noop: {
      run: async (job) => {
        const at = enqueuedAt[Number(job.payload.i)];
        if (at !== undefined) latencies.push(performance.now() - at);
      },
    },
  });
  const listening = new JobWakeups(db, log);
  const announcing = new JobWakeups(other ?? db, log);
  if (mode === 'notified') await listening.listen(() => runtime.nudge());
  runtime.start();
  await sleep(options.pollIntervalMs); // settle into the idle poll rhythm
  for (let i = 0; i < count; i++) {
    enqueuedAt[i] = performance.now();
    await insertJob(mode === 'notified' ? (other ?? db).sql : sql, { kind: 'noop', payload: { i } });
    if (mode === 'nudged') runtime.nudge();
    if (mode === 'notified') announcing.announce('noop');
    await sleep(20 + Math.random() * 40);
  }
  while (latencies.length < count) await sleep(20);
  await runtime.stop(5_000);
  await listening.close();
  return latencies;
}

/** graphile-worker draining `n` no-op jobs in its own process (see peer-libs/graphile-drain.ts). */
async function drainWithGraphile(url: string, n: number, mode: 'default' | 'batched', localQueueSize = options.concurrency + 1): Promise<number> {
  const peer = await startPeerScript(peerScript('graphile-drain'), {
    DATABASE_URL: url, JOBS: String(n), MODE: mode, CONCURRENCY: String(options.concurrency), POOL: String(defaults.dbPoolMax), LOCAL_QUEUE_SIZE: String(localQueueSize),
  }, 600_000);
  await peer.stop();
  return Number(peer.ready.jobsPerSec);
}

await ensurePeerLibs();
const db = await createDatabase('queue');
const graphileDb = await createDatabase('graphile', false);
try {
  const main = await db.open(defaults.dbPoolMax);
  const { sql } = main;
  const rounds: { enqueue: number; runtime: number; graphileDefault: number; graphileBatched: number; sqlLoop: number }[] = [];
  const bySize = new Map<number, number[]>(LOCAL_QUEUE_SIZES.map((size) => [size, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const enqueueRate = await enqueue(sql, JOBS);
    const runtimeRate = await drainWithRuntime(sql, JOBS);
    const graphileDefault = await drainWithGraphile(graphileDb.url, JOBS, 'default');
    let graphileBatched = 0;
    for (const size of LOCAL_QUEUE_SIZES) {
      const rate = await drainWithGraphile(graphileDb.url, JOBS, 'batched', size);
      bySize.get(size)?.push(rate);
      graphileBatched = Math.max(graphileBatched, rate);
    }
    await enqueue(sql, JOBS);
    const sqlRate = await drainWithSql(sql, defaults.dbPoolMax);
    rounds.push({ enqueue: enqueueRate, runtime: runtimeRate, graphileDefault, graphileBatched, sqlLoop: sqlRate });
  }
  const med = (k: keyof (typeof rounds)[number]) => medianBy(rounds, (x) => x[k])[k];
  const runtimeRate = med('runtime');
  const sqlRate = med('sqlLoop');
  const gDefault = med('graphileDefault');
  const gBatched = med('graphileBatched');
  const best = Math.max(gDefault, gBatched);
  const nudged = await trickle(main, TRICKLE, 'nudged');
  const polled = await trickle(main, TRICKLE, 'polled');
  const notified = await trickle(main, TRICKLE, 'notified', await db.open(2));
  const lat = (xs: number[]) => ({ p50Ms: round(percentile(xs, 50), 1), p99Ms: round(percentile(xs, 99), 1), maxMs: round(Math.max(...xs), 1) });
  const data = {
    jobs: JOBS,
    rounds: ROUNDS,
    options,
    enqueuePerSec: round(med('enqueue'), 0),
    runtimePerSec: round(runtimeRate, 0),
    graphileDefaultPerSec: round(gDefault, 0),
    graphileBatchedPerSec: round(gBatched, 0),
    sqlLoopPerSec: round(sqlRate, 0),
    graphileLocalQueuePerSec: Object.fromEntries([...bySize].map(([size, rates]) => [size, round(medianBy(rates.map((rate) => ({ rate })), (x) => x.rate).rate, 0)])),
    ratio: round(runtimeRate / sqlRate, 3),
    peerRatio: round(runtimeRate / best, 3),
    met: runtimeRate / best >= TARGET,
    roundsPerSec: rounds.map((x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k, round(v, 0)]))),
    latencyNudged: lat(nudged),
    latencyPolled: lat(polled),
    latencyNotified: lat(notified),
  };
  print({
    bench: 'queue',
    title: `Queue: ${JOBS.toLocaleString('en-US')} no-op jobs through WorkerRuntime vs graphile-worker 0.18 and a plain SQL claim/delete loop`,
    notes: [
      `runtime with the default settings: QUEUE_BATCH_SIZE=${options.batchSize}, QUEUE_CONCURRENCY=${options.concurrency}, QUEUE_POLL_INTERVAL_MS=${options.pollIntervalMs}, DB_POOL_MAX=${defaults.dbPoolMax}; in the benchmark's process (no HTTP involved)`,
      `enqueue: insertJob one job per statement (autocommit), ${ENQUEUE_IN_FLIGHT} in flight; jobs truncated before each phase`,
      'runtime drain: timed from start() until the jobs table is empty',
      `graphile-worker 0.18 (scripts/bench/peer-libs/graphile-drain.ts) in its own process on a database of its own on the same server, concurrency ${options.concurrency}, pool ${defaults.dbPoolMax}, jobs queued in bulk beforehand (not timed), timed from run() until its jobs table is empty; "default" as installed, "batched" with completeJobBatchDelay = 0 and localQueue.size swept over ${LOCAL_QUEUE_SIZES.join(', ')} (BENCH_GRAPHILE_LOCAL_QUEUE), each round keeping its best`,
      `baseline: DELETE … WHERE id IN (SELECT … ORDER BY run_at, id LIMIT ${options.batchSize} FOR UPDATE SKIP LOCKED) RETURNING in a loop, ${defaults.dbPoolMax} loops at once on the same ${defaults.dbPoolMax}-connection pool (one commit per batch, no lease)`,
      `${ROUNDS} interleaved rounds (runtime, graphile default, graphile batched, SQL loop), median round of each shown`,
      `latency: ${TRICKLE} jobs inserted one by one 20–60 ms apart; "nudged" calls runtime.nudge() after each insert (as an emit does), "polled" waits for the next poll, "other instance" inserts through a second pool that announces each job with NOTIFY (JobWakeups), which the runtime's pool LISTENs for (both pools in this process, the wake-up going through PostgreSQL)`,
      `target: runtime ÷ graphile-worker's best mode ≥ ${TARGET}`,
    ],
    columns: ['measure', 'jobs/s', 'p50 ms', 'p99 ms', '÷ SQL loop', '÷ graphile best'],
    rows: [
      ['enqueue (insertJob)', data.enqueuePerSec, null, null, null, null],
      ['drain: WorkerRuntime', data.runtimePerSec, null, null, data.ratio, `${data.peerRatio} (${verdict(data.met)})`],
      ['drain: graphile-worker 0.18, default', data.graphileDefaultPerSec, null, null, round(gDefault / sqlRate, 3), '(peer)'],
      ...[...bySize.keys()].map((size) => [`drain: graphile-worker 0.18, localQueue ${size} + batched completion`, data.graphileLocalQueuePerSec[size] ?? null, null, null, null, '(peer)']),
      ['drain: graphile-worker 0.18, best local queue of each round', data.graphileBatchedPerSec, null, null, round(gBatched / sqlRate, 3), '(peer)'],
      ['drain: SQL claim+delete loop', data.sqlLoopPerSec, null, null, '(baseline)', null],
      ['enqueue→start, nudged', null, data.latencyNudged.p50Ms, data.latencyNudged.p99Ms, null, null],
      [`enqueue→start, polled (${options.pollIntervalMs} ms)`, null, data.latencyPolled.p50Ms, data.latencyPolled.p99Ms, null, null],
      ['enqueue→start, other instance (LISTEN/NOTIFY)', null, data.latencyNotified.p50Ms, data.latencyNotified.p99Ms, null, null],
    ],
    data,
    headlines: [
      { figure: 'queue drain, runtime ÷ graphile-worker best', value: `${data.peerRatio} (${data.runtimePerSec.toLocaleString('en-US')} vs ${Math.round(best).toLocaleString('en-US')} jobs/s)`, target: `≥ ${TARGET}`, met: data.met },
      { figure: 'queue drain, runtime/SQL loop', value: `${data.ratio} (${data.runtimePerSec.toLocaleString('en-US')} vs ${data.sqlLoopPerSec.toLocaleString('en-US')} jobs/s)`, target: null, met: null },
      { figure: 'enqueue→start p50/p99, nudged', value: `${data.latencyNudged.p50Ms} / ${data.latencyNudged.p99Ms} ms`, target: null, met: null },
      { figure: 'enqueue→start p50/p99, polled', value: `${data.latencyPolled.p50Ms} / ${data.latencyPolled.p99Ms} ms`, target: null, met: null },
      { figure: 'enqueue→start p50/p99, other instance (NOTIFY)', value: `${data.latencyNotified.p50Ms} / ${data.latencyNotified.p99Ms} ms`, target: null, met: null },
    ],
  });
} finally {
  await db.drop();
  await graphileDb.drop();
}
