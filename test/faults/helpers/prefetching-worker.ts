// A process that runs one WorkerRuntime on DATABASE_URL with one slot and a prefetch batch,
// whose `noop` handler never returns: it holds one running job and the rest of its batch
// prefetched until it is killed. Prints {"owner":…} once started, then {"started":id} per job.
import { openDatabase } from '../../../src/db/connect.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/log.ts';
import { WorkerRuntime } from '../../../src/queue/runtime.ts';

const log = createLogger('silent');
const db = await openDatabase(loadConfig({ DATABASE_URL: process.env.DATABASE_URL ?? '' }), log);
const runtime = new WorkerRuntime(db.sql, log, { pollIntervalMs: 50, batchSize: Number(process.env.BATCH ?? 10), concurrency: 1, leaseMs: Number(process.env.LEASE_MS ?? 2000) }, {
  noop: { run: (job) => new Promise<void>(() => process.stdout.write(`${JSON.stringify({ started: job.id })}\n`)) },
});
process.stdout.write(`${JSON.stringify({ owner: runtime.owner })}\n`);
runtime.start();
