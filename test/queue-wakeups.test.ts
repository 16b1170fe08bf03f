import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/connect.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { insertJob } from '../src/queue/queries.ts';
import { WorkerRuntime } from '../src/queue/runtime.ts';
import { JobWakeups } from '../src/queue/wakeups.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { waitFor } from './helpers/wait.ts';

// A job enqueued on one instance wakes an idle worker on another through LISTEN/NOTIFY,
// long before its next poll. The embedded database serves one process: no wake-ups there.

const log = createLogger('silent');
let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, log);
});
after(() => t.close());

test('a job announced by another instance wakes an idle runtime within milliseconds, not at its next poll', async (ctx) => {
  if (t.db.kind === 'embedded') {
    // One process only: the local nudge is the whole story, and nothing is sent.
    const wakeups = new JobWakeups(t.db, log);
    assert.equal(wakeups.enabled, false);
    let woken = 0;
    await wakeups.listen(() => woken++);
    wakeups.announce('noop');
    await sleep(50);
    assert.equal(woken, 0);
    return;
  }
  const other: Database = await openDatabase(loadConfig({ DATABASE_URL: t.url, DB_POOL_MAX: '2' }), log);
  ctx.after(() => other.close());
  const started: number[] = [];
  const runtime = new WorkerRuntime(t.db.sql, log, { pollIntervalMs: 60_000, batchSize: 5, concurrency: 5, leaseMs: 30_000 }, {
    noop: { run: async () => void started.push(performance.now()) },
  });
  const listening = new JobWakeups(t.db, log);
  await listening.listen((kind) => { if (kind === 'noop') runtime.nudge(); });
  const announcing = new JobWakeups(other, log);
  runtime.start();
  try {
    await sleep(200); // idle: its next poll is a minute away
    for (let i = 0; i < 5; i++) {
      const at = performance.now();
      await insertJob(other.sql, { kind: 'noop', payload: { i } });
      announcing.announce('noop');
      await waitFor(() => started.length === i + 1, 5_000, 'woken');
      assert.ok((started[i] as number) - at < 2_000, `started ${Math.round((started[i] as number) - at)} ms after its enqueue`);
    }
  } finally {
    await runtime.stop(1000);
    await listening.close();
  }
});
