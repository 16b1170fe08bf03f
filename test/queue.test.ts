import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { JOB_KINDS, backoffMs } from '../src/queue/kinds.ts';
import { claimJobs, completeJob, completeJobs, countJobs, insertJob, rescheduleJob, scheduleKeyedJob } from '../src/queue/queries.ts';
import { countingClaims } from './helpers/claims.ts';
import { waitFor } from './helpers/wait.ts';
import { WorkerRuntime, type JobDefinition } from '../src/queue/runtime.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

const log = createLogger('silent');
let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, log);
});
after(() => t.close());
beforeEach(async () => {
  await t.db.sql`delete from jobs`;
});

const FAST = { pollIntervalMs: 20, batchSize: 10, concurrency: 10, leaseMs: 30_000 };

async function remaining(): Promise<number> {
  const [row] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from jobs`;
  return row?.n ?? -1;
}

describe('jobs queue', () => {
  test('a runtime drains what is enqueued and deletes finished jobs', async () => {
    const seen: number[] = [];
    const rt = new WorkerRuntime(t.db.sql, log, FAST, { noop: { run: async (job) => void seen.push(job.payload.n as number) } });
    for (let n = 0; n < 50; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { n } });
    rt.start();
    await waitFor(async () => (await remaining()) === 0);
    await rt.stop(1000);
    assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  });

  test('under a backlog a runtime claims once half its slots fit, not every few jobs', async () => {
    const counted = countingClaims(t.db.sql);
    await t.db.sql`insert into jobs (kind, payload) select 'noop', jsonb_build_object('n', g) from generate_series(1, 800) g`;
    const rt = new WorkerRuntime(counted.sql, log, { pollIntervalMs: 20, batchSize: 4, concurrency: 40, leaseMs: 30_000 }, { noop: { run: () => sleep(Math.random() * 8) } }); // finishing one by one, not in waves
    rt.start();
    await waitFor(async () => (await remaining()) === 0, 30_000);
    await rt.stop(1000);
    // At least 20 jobs per claim but the last few: about 40 claims. Claiming once half a batch
    // (2 jobs) fitted made 75–78 here.
    assert.ok(counted.claims() <= 55, `${counted.claims()} claims for 800 jobs`);
    assert.equal(counted.largest(), 44, 'the first claim takes every slot and a batch ahead');
  });

  test('two runtimes on one database never run a job twice, nor one job at the same time', async () => {
    const runs = new Map<string, number>();
    const running = new Set<string>();
    let overlaps = 0;
    const def: JobDefinition<'noop'> = {
      run: async (job) => {
        if (running.has(job.id)) overlaps++;
        running.add(job.id);
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        await sleep(Math.random() * 5);
        running.delete(job.id);
      },
    };
    const a = new WorkerRuntime(t.db.sql, log, { ...FAST, batchSize: 3 }, { noop: def });
    const b = new WorkerRuntime(t.db.sql, log, { ...FAST, batchSize: 4 }, { noop: def });
    for (let n = 0; n < 200; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { n } });
    a.start();
    b.start();
    await waitFor(async () => (await remaining()) === 0);
    await Promise.all([a.stop(1000), b.stop(1000)]);
    assert.equal(runs.size, 200);
    assert.deepEqual([...new Set(runs.values())], [1]);
    assert.equal(overlaps, 0);
  });

  test('a job whose worker died is claimed again after its lease, and the dead owner cannot complete it', async () => {
    await insertJob(t.db.sql, { kind: 'noop', payload: { n: 1 } });
    const [stolen] = await claimJobs(t.db.sql, ['noop'], 'crashed-worker', 10, 300);
    assert.ok(stolen);
    const ran: string[] = [];
    const rt = new WorkerRuntime(t.db.sql, log, FAST, { noop: { run: async (job) => void ran.push(job.id) } });
    rt.start();
    await sleep(150);
    assert.deepEqual(ran, [], 'not while the lease holds');
    await waitFor(async () => ran.length === 1);
    await rt.stop(1000);
    assert.equal(ran[0], stolen.id);
    assert.equal(await completeJob(t.db.sql, stolen.id, 'crashed-worker'), false);
  });

  test('a job that outlasts its lease has it renewed and runs exactly once across two runtimes', async () => {
    let runs = 0;
    // Renewed every second: a busy machine delaying a renewal by a few hundred ms is fine.
    const def: JobDefinition<'noop'> = { run: async () => { runs++; await sleep(4500); } };
    const short = { ...FAST, leaseMs: 3000 };
    const a = new WorkerRuntime(t.db.sql, log, short, { noop: def });
    const b = new WorkerRuntime(t.db.sql, log, short, { noop: def });
    await insertJob(t.db.sql, { kind: 'noop' });
    a.start();
    b.start();
    try {
      await waitFor(async () => (await remaining()) === 0, 15_000);
    } finally {
      await Promise.all([a.stop(6000), b.stop(6000)]);
    }
    assert.equal(runs, 1);
  });

  test('a running job whose lease another worker took sees its signal aborted', async () => {
    let abortedAfterMs = -1;
    let started = 0;
    const rt = new WorkerRuntime(t.db.sql, log, { ...FAST, leaseMs: 3000 }, {
      noop: {
        run: (_job, ctx) => new Promise<void>((resolve) => {
          started = Date.now();
          const timer = setTimeout(resolve, 5000);
          ctx.signal.addEventListener('abort', () => {
            abortedAfterMs = Date.now() - started;
            clearTimeout(timer);
            resolve();
          });
        }),
      },
    });
    await insertJob(t.db.sql, { kind: 'noop' });
    rt.start();
    try {
      await waitFor(async () => rt.activeCount === 1);
      await sleep(500);
      assert.equal(abortedAfterMs, -1, 'not aborted while its lease is renewed');
      await t.db.sql`update jobs set locked_by = 'another-worker', locked_until = now() + interval '1 minute'`;
      await waitFor(async () => abortedAfterMs >= 0, 6000);
    } finally {
      await rt.stop(100);
    }
    const [row] = await t.db.sql`select locked_by from jobs`;
    assert.equal(row?.lockedBy, 'another-worker', 'the aborted run could not complete the job it no longer owned');
  });

  test('a run aborted because another worker took its job records no failure and runs no exhausted hook', async () => {
    let exhausted = false;
    let aborted = false;
    const rt = new WorkerRuntime(t.db.sql, log, { ...FAST, leaseMs: 3000 }, {
      noop: {
        policy: { maxAttempts: 1 },
        run: (_job, ctx) => new Promise<void>((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('cut'));
          });
        }),
        exhausted: async () => {
          exhausted = true;
        },
      },
    });
    await insertJob(t.db.sql, { kind: 'noop' });
    rt.start();
    try {
      await waitFor(async () => rt.activeCount === 1);
      await t.db.sql`update jobs set locked_by = 'another-worker', locked_until = now() + interval '1 minute'`;
      await waitFor(async () => aborted, 6000);
      await waitFor(async () => rt.activeCount === 0, 6000);
    } finally {
      await rt.stop(100);
    }
    assert.equal(exhausted, false, 'the failure of a cut run is not the job\'s');
    const [row] = await t.db.sql`select locked_by, last_error from jobs`;
    assert.equal(row?.lockedBy, 'another-worker');
    assert.equal(row?.lastError, null);
  });

  test('a runtime never claims its own running job again, even after its lease lapsed', async () => {
    let runs = 0;
    let overlapping = 0;
    let running = 0;
    let release = (): void => undefined;
    const rt = new WorkerRuntime(t.db.sql, log, FAST, {
      noop: {
        run: () => {
          runs++;
          running++;
          overlapping = Math.max(overlapping, running);
          return new Promise<void>((resolve) => (release = () => { running--; resolve(); }));
        },
      },
    });
    await insertJob(t.db.sql, { kind: 'noop' });
    rt.start();
    try {
      await waitFor(async () => rt.activeCount === 1);
      // As if this process had stalled past its lease: the job looks claimable again.
      await t.db.sql`update jobs set locked_until = now() - interval '1 second'`;
      await sleep(300); // 15 polls
      assert.equal(runs, 1, 'not started a second time in the same process');
      release();
      await waitFor(async () => (await remaining()) === 0);
    } finally {
      await rt.stop(1000);
    }
    assert.equal(overlapping, 1);
  });

  test('a keyed job asked to run again while it runs is due at once when that run completes', async () => {
    await scheduleKeyedJob(t.db.sql, { kind: 'noop', uniqueKey: 'again:1', delayMs: 0 });
    const [job] = await claimJobs(t.db.sql, ['noop'], 'worker-a', 10, 30_000);
    assert.ok(job);
    // Asked again while worker-a holds it: not moved under the run, but marked.
    await scheduleKeyedJob(t.db.sql, { kind: 'noop', uniqueKey: 'again:1', delayMs: 0 });
    const [held] = await t.db.sql`select locked_by, rerun from jobs where id = ${job.id}`;
    assert.deepEqual({ by: held?.lockedBy, rerun: held?.rerun }, { by: 'worker-a', rerun: true });
    assert.equal(await completeJob(t.db.sql, job.id, 'worker-a'), true);
    const [again] = await claimJobs(t.db.sql, ['noop'], 'worker-b', 10, 30_000);
    assert.equal(again?.id, job.id, 'kept and due now instead of deleted');
    assert.equal(again?.attempts, 1, 'a fresh count of attempts');
    assert.equal(await completeJob(t.db.sql, job.id, 'worker-b'), true);
    assert.equal(await remaining(), 0, 'completed without a new request: gone');
  });

  test('a keyed job asked to run again while it runs is due at once when that run reschedules it', async () => {
    await scheduleKeyedJob(t.db.sql, { kind: 'noop', uniqueKey: 'again:2', delayMs: 0 });
    const [job] = await claimJobs(t.db.sql, ['noop'], 'worker-a', 10, 30_000);
    assert.ok(job);
    await scheduleKeyedJob(t.db.sql, { kind: 'noop', uniqueKey: 'again:2', delayMs: 0 });
    assert.equal(await rescheduleJob(t.db.sql, job.id, 'worker-a', { delayMs: 3_600_000, error: 'failed', countAttempt: true }), true);
    const [row] = await t.db.sql`select run_at <= now() as due, attempts, rerun from jobs where id = ${job.id}`;
    assert.deepEqual({ due: row?.due, attempts: row?.attempts, rerun: row?.rerun }, { due: true, attempts: 0, rerun: false });
    // Not running: asking again just moves it, no mark.
    await t.db.sql`update jobs set run_at = now() + interval '1 hour'`;
    await scheduleKeyedJob(t.db.sql, { kind: 'noop', uniqueKey: 'again:2', delayMs: 0 });
    const [moved] = await t.db.sql`select run_at <= now() as due, rerun from jobs where id = ${job.id}`;
    assert.deepEqual({ due: moved?.due, rerun: moved?.rerun }, { due: true, rerun: false });
  });

  test('failures are retried with backoff, then the exhausted hook runs and the job is gone', async () => {
    let attempts = 0;
    let exhaustedWith: unknown = null;
    const rt = new WorkerRuntime(t.db.sql, log, FAST, {
      noop: {
        run: async () => {
          attempts++;
          throw new Error(`boom ${attempts}`);
        },
        exhausted: async (_job, err) => {
          exhaustedWith = err;
        },
      },
    });
    await insertJob(t.db.sql, { kind: 'noop' });
    rt.start();
    await waitFor(async () => exhaustedWith !== null && (await remaining()) === 0);
    await rt.stop(1000);
    assert.equal(attempts, 3, 'maxAttempts of noop');
    assert.match((exhaustedWith as Error).message, /boom 3/);
  });

  test('a planned wait reschedules without counting an attempt and can update the payload', async () => {
    const polls: number[] = [];
    const rt = new WorkerRuntime(t.db.sql, log, FAST, {
      noop: {
        run: async (job) => {
          const n = (job.payload.n as number) ?? 0;
          polls.push(job.attempts);
          if (n < 5) return { retryIn: 10, payload: { n: n + 1 } };
        },
      },
    });
    await insertJob(t.db.sql, { kind: 'noop', payload: { n: 0 } });
    rt.start();
    await waitFor(async () => (await remaining()) === 0);
    await rt.stop(1000);
    assert.deepEqual(polls, [1, 1, 1, 1, 1, 1]);
  });

  test('a full batch is followed by another claim at once, not after the poll interval', async () => {
    let done = 0;
    const rt = new WorkerRuntime(t.db.sql, log, { pollIntervalMs: 60_000, batchSize: 5, concurrency: 5, leaseMs: 30_000 }, { noop: { run: async () => void done++ } });
    for (let n = 0; n < 40; n++) await insertJob(t.db.sql, { kind: 'noop' });
    const started = Date.now();
    rt.start();
    await waitFor(async () => done === 40, 15_000);
    await rt.stop(1000);
    assert.ok(Date.now() - started < 15_000);
  });

  test('a nudge wakes a sleeping runtime at once', async () => {
    let done = 0;
    const rt = new WorkerRuntime(t.db.sql, log, { ...FAST, pollIntervalMs: 60_000 }, { noop: { run: async () => void done++ } });
    rt.start();
    await sleep(100);
    await insertJob(t.db.sql, { kind: 'noop' });
    rt.nudge();
    await waitFor(async () => done === 1, 5_000);
    await rt.stop(1000);
  });

  test('stop waits for running jobs, then releases the unfinished ones uncounted', async () => {
    const rt = new WorkerRuntime(t.db.sql, log, FAST, {
      noop: { run: (_job, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve())) },
    });
    await insertJob(t.db.sql, { kind: 'noop' });
    rt.start();
    await waitFor(async () => rt.activeCount === 1);
    await rt.stop(100);
    const [row] = await t.db.sql`select attempts, locked_by from jobs`;
    assert.equal(row?.attempts, 0);
    assert.equal(row?.lockedBy, null);
  });

  test('a runtime claims a batch ahead of its free slots and gives the prefetched jobs back at stop uncounted', async () => {
    const rt = new WorkerRuntime(t.db.sql, log, { ...FAST, concurrency: 1, batchSize: 4 }, {
      noop: { run: (_job, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve())) },
    });
    for (let n = 0; n < 6; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { n } });
    rt.start();
    // One claim: the free slot plus a batch of four ahead.
    await waitFor(async () => rt.activeCount === 1 && rt.prefetchedCount === 4);
    const [held] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from jobs where locked_by = ${rt.owner} and locked_until > now()`;
    assert.equal(held?.n, 5, 'the running job and the four claimed ahead are leased');
    await rt.stop(100);
    const rows = await t.db.sql<{ attempts: number; lockedBy: string | null }[]>`select attempts, locked_by from jobs`;
    assert.equal(rows.length, 6);
    assert.ok(rows.every((r) => r.attempts === 0 && r.lockedBy === null));
  });

  test('a runtime runs at most a group\'s limit of its jobs at once, holding the rest while other groups run', async () => {
    const running = new Map<string, number>();
    const most = new Map<string, number>();
    const runs = new Map<string, number>();
    const order: string[] = [];
    const rt = new WorkerRuntime(t.db.sql, log, { ...FAST, concurrency: 6 }, {
      noop: {
        group: { by: 'g', limit: 2 },
        run: async (job) => {
          const g = String(job.payload.g);
          running.set(g, (running.get(g) ?? 0) + 1);
          most.set(g, Math.max(most.get(g) ?? 0, running.get(g) ?? 0));
          runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
          order.push(g);
          await sleep(30);
          running.set(g, (running.get(g) ?? 1) - 1);
        },
      },
    });
    // Group a's jobs come first in the queue; b's must not wait for all of them.
    for (let n = 0; n < 12; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { g: 'a', n } });
    for (let n = 0; n < 4; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { g: 'b', n } });
    rt.start();
    await waitFor(async () => (await remaining()) === 0, 20_000);
    await rt.stop(1000);
    assert.equal(runs.size, 16);
    assert.ok([...runs.values()].every((n) => n === 1), 'each job ran once');
    assert.equal(most.get('a'), 2);
    assert.equal(most.get('b'), 2);
    assert.ok(order.indexOf('b') < order.lastIndexOf('a') - 4, `b ran while a still had jobs waiting: ${order.join('')}`);
  });

  test('jobs of a group at its limit that one claim brought are held, not put back to the table and claimed again', async () => {
    // Every time a claimed job is given back unrun (locked, then unlocked while still there).
    await t.db.sql.unsafe('create table test_given_back (id bigint)');
    await t.db.sql.unsafe(`create function test_note_given_back() returns trigger language plpgsql as $$
      begin insert into test_given_back values (new.id); return new; end $$`);
    await t.db.sql.unsafe(`create trigger test_note_given_back after update on jobs for each row
      when (old.locked_by is not null and new.locked_by is null) execute function test_note_given_back()`);
    try {
      let most = 0;
      let running = 0;
      const rt = new WorkerRuntime(t.db.sql, log, { ...FAST, batchSize: 8, concurrency: 6 }, {
        noop: {
          group: { by: 'g', limit: 2 },
          run: async () => {
            most = Math.max(most, ++running);
            await sleep(40);
            running--;
          },
        },
      });
      for (let n = 0; n < 8; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { g: 'c', n } });
      rt.start();
      await waitFor(async () => (await remaining()) === 0, 20_000);
      await rt.stop(1000);
      assert.equal(most, 2, 'the group ran at its limit');
      const [given] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from test_given_back`;
      assert.equal(given?.n, 0, 'no job of the claim went back to the table');
    } finally {
      await t.db.sql.unsafe('drop trigger test_note_given_back on jobs');
      await t.db.sql.unsafe('drop function test_note_given_back()');
      await t.db.sql.unsafe('drop table test_given_back');
    }
  });

  test('claimJobs leaves out the groups it is told to skip', async () => {
    for (const g of ['a', 'b', 'a', 'c']) await insertJob(t.db.sql, { kind: 'noop', payload: { g } });
    const jobs = await claimJobs(t.db.sql, ['noop'], 'worker-a', 10, 30_000, [], [{ kind: 'noop', field: 'g', value: 'a' }, { kind: 'webhook.deliver', field: 'g', value: 'c' }]);
    assert.deepEqual(jobs.map((j) => (j.payload as Record<string, unknown>).g).sort(), ['b', 'c']);
  });

  test('completeJobs deletes in one statement only the jobs the owner holds, and makes a rerun job due again', async () => {
    const a = await insertJob(t.db.sql, { kind: 'noop' });
    const b = await insertJob(t.db.sql, { kind: 'noop' });
    await scheduleKeyedJob(t.db.sql, { kind: 'noop', uniqueKey: 'batch:again' });
    const mine = await claimJobs(t.db.sql, ['noop'], 'worker-a', 10, 30_000);
    assert.equal(mine.length, 3);
    await scheduleKeyedJob(t.db.sql, { kind: 'noop', uniqueKey: 'batch:again' });
    const other = await insertJob(t.db.sql, { kind: 'noop' });
    await claimJobs(t.db.sql, ['noop'], 'worker-b', 10, 30_000);
    const written = await completeJobs(t.db.sql, [...mine.map((j) => j.id), other as string], 'worker-a');
    assert.equal(written.size, 3, 'not worker-b\'s job');
    const left = await t.db.sql<{ id: string; lockedBy: string | null; uniqueKey: string | null }[]>`select id, locked_by, unique_key from jobs order by id`;
    assert.deepEqual(left.map((r) => [r.uniqueKey, r.lockedBy]), [['batch:again', null], [null, 'worker-b']]);
    assert.ok(![a, b].includes(left[0]?.id ?? ''));
  });

  test('unique keys keep one pending job per key', async () => {
    assert.notEqual(await insertJob(t.db.sql, { kind: 'noop', uniqueKey: 'only-one' }), null);
    assert.equal(await insertJob(t.db.sql, { kind: 'noop', uniqueKey: 'only-one' }), null);
    assert.deepEqual([...(await countJobs(t.db.sql))], [{ kind: 'noop', queued: 1, running: 0 }]);
  });

  test('backoff grows exponentially up to its cap, with jitter in the upper half', () => {
    const policy = JOB_KINDS['document.submit'];
    assert.equal(backoffMs(policy, 1, () => 1), 2_000);
    assert.equal(backoffMs(policy, 1, () => 0), 1_000);
    assert.equal(backoffMs(policy, 4, () => 1), 16_000);
    assert.equal(backoffMs(policy, 30, () => 1), 300_000);
  });
});
