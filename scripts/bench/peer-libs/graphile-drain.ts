// The queue benchmark's peer: graphile-worker 0.18 draining `JOBS` no-op jobs on the same
// PostgreSQL, in its own process, with the service's concurrency and pool size. MODE=default
// is graphile-worker as installed; MODE=batched adds its documented throughput settings
// (a local queue of locked jobs and batched completion). Queues the jobs in bulk (not
// timed), then times the worker from its start until the queue is empty and prints
// {"jobsPerSec":…}. Not typechecked with the service (its libraries live only in this folder).
import { performance } from 'node:perf_hooks';
import { Logger, makeWorkerUtils, run } from 'graphile-worker';

const connectionString = process.env.DATABASE_URL;
const jobs = Number(process.env.JOBS ?? 20000);
const concurrency = Number(process.env.CONCURRENCY ?? 50);
const pool = Number(process.env.POOL ?? 10);
const batched = process.env.MODE === 'batched';
const localQueueSize = Number(process.env.LOCAL_QUEUE_SIZE ?? concurrency + 1);
const silent = new Logger(() => () => {});

const utils = await makeWorkerUtils({ connectionString, logger: silent });
await utils.migrate();
await utils.withPgClient((c) => c.query('delete from graphile_worker._private_jobs'));
// Enqueued in bulk: only the drain is compared.
for (let i = 0; i < jobs; i += 1000) {
  await utils.addJobs(Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => ({ identifier: 'noop', payload: { i: i + k } })));
}

let ran = 0;
let allRan = () => {};
const finished = new Promise((resolve) => (allRan = resolve));
const started = performance.now();
const runner = await run({
  connectionString,
  concurrency,
  maxPoolSize: pool,
  pollInterval: 1000,
  noHandleSignals: true,
  logger: silent,
  taskList: { noop: async () => { if (++ran === jobs) allRan(); } },
  ...(batched ? { preset: { worker: { localQueue: { size: localQueueSize }, completeJobBatchDelay: 0 } } } : {}),
});
await finished;
for (;;) {
  const left = await utils.withPgClient((c) => c.query('select count(*)::int as n from graphile_worker._private_jobs'));
  if (left.rows[0].n === 0) break;
  await new Promise((r) => setTimeout(r, 5));
}
const elapsed = performance.now() - started;
await runner.stop();
await utils.release();
process.stdout.write(`${JSON.stringify({ jobsPerSec: jobs / (elapsed / 1000), ran })}\n`);
process.exit(0);
