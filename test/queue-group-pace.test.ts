import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { insertJob } from '../src/queue/queries.ts';
import { GroupSlots, type Group } from '../src/queue/groups.ts';
import { WorkerRuntime, type JobDefinitions } from '../src/queue/runtime.ts';
import type { GroupBurst } from '../src/queue/definitions.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { waitFor } from './helpers/wait.ts';
import { watchStatements } from './helpers/statements.ts';

// A group's limit keeps jobs that hold their slots (deliveries to a slow receiver) from taking
// every slot; a group whose jobs are quick may run up to its burst limit (JobGroup.burst).

const BURST: GroupBurst = { limit: 5, whileUnderMs: 100 };

function slotsFor(burst: GroupBurst | undefined): { slots: GroupSlots; group: Group } {
  const definitions: JobDefinitions = { noop: { run: async () => {}, group: burst === undefined ? { by: 'g', limit: 2 } : { by: 'g', limit: 2, burst } } };
  const slots = new GroupSlots(definitions, 10);
  const group = slots.groupOf({ kind: 'noop', payload: { g: 'a' } });
  assert.ok(group !== null);
  return { slots, group };
}

/** Starts jobs of `group` at `at` while it has room; answers how many started. */
function fill(slots: GroupSlots, group: Group, at: number): number {
  let n = 0;
  while (slots.hasRoom(group, at)) {
    slots.started(group, at);
    n++;
  }
  return n;
}

describe('group pace', () => {
  test('a group starts at its limit, and runs up to its burst limit once one of its jobs finished quickly', () => {
    const { slots, group } = slotsFor(BURST);
    assert.equal(fill(slots, group, 0), 2, 'nothing finished yet: the limit');
    slots.finished(group, 0, 10);
    assert.equal(fill(slots, group, 20), 4, 'quick: up to the burst limit');
    assert.equal(slots.limitOf(group, 20), 5);
  });

  test('a group whose running job has run whileUnderMs is back at its limit', () => {
    const { slots, group } = slotsFor(BURST);
    fill(slots, group, 0);
    slots.finished(group, 0, 10);
    fill(slots, group, 20); // five running, the oldest started at 0
    assert.equal(slots.limitOf(group, 99), 5);
    assert.equal(slots.limitOf(group, 100), 2, 'a job of the group has run 100 ms');
    for (const startedAt of [0, 20, 20]) slots.finished(group, startedAt, 130); // slow finishes
    assert.equal(slots.hasRoom(group, 140), false, 'two still running: at the limit again');
  });

  test('a job that finishes slowly ends the burst', () => {
    const { slots, group } = slotsFor(BURST);
    fill(slots, group, 0);
    slots.finished(group, 0, 10);
    fill(slots, group, 20);
    slots.finished(group, 20, 150);
    assert.equal(slots.limitOf(group, 150), 2);
    assert.equal(slots.hasRoom(group, 150), false);
  });

  test('a group without a burst limit stays at its limit however quick its jobs', () => {
    const { slots, group } = slotsFor(undefined);
    fill(slots, group, 0);
    slots.finished(group, 0, 1);
    assert.equal(fill(slots, group, 2), 1);
  });
});

describe('a runtime and group pace', () => {
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

  /** Runs `jobs` jobs of one group taking `ms` each; answers the most that ran at once. */
  async function mostAtOnce(jobs: number, ms: number): Promise<number> {
    let running = 0;
    let most = 0;
    const rt = new WorkerRuntime(t.db.sql, log, { pollIntervalMs: 20, batchSize: 10, concurrency: 10, leaseMs: 30_000 }, {
      noop: {
        group: { by: 'g', limit: 2, burst: { limit: 6, whileUnderMs: 200 } },
        run: async () => {
          most = Math.max(most, ++running);
          await sleep(ms);
          running--;
        },
      },
    });
    for (let n = 0; n < jobs; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { g: 'a', n } });
    rt.start();
    await waitFor(async () => (await t.db.sql<{ n: number }[]>`select count(*)::int as n from jobs`)[0]?.n === 0, 20_000);
    await rt.stop(1000);
    return most;
  }

  test('runs a group\'s quick jobs beyond its limit, up to its burst limit', async () => {
    const most = await mostAtOnce(24, 5);
    assert.ok(most > 2 && most <= 6, `at most ${most} at once`);
  });

  test('runs a group\'s slow jobs at its limit', async () => {
    assert.equal(await mostAtOnce(4, 250), 2);
  });

  test('a job that finishes while a claim is in flight does not make another claim on the last one\'s backlog', async () => {
    // One group's quick jobs: after a full claim the group is at its limit, so the next claim
    // leaves it out and finds nothing. A job finishing while that claim is in flight (each
    // answer held 30 ms, as a busy database's) used to nudge for a third on the full claim's
    // backlog, which found nothing either: a pair of empty claims per full one.
    const { sql, seen } = watchStatements(t.db.sql, 'attempts = j.attempts + 1', 30);
    const rt = new WorkerRuntime(sql, log, { pollIntervalMs: 5_000, batchSize: 10, concurrency: 10, leaseMs: 30_000 }, {
      noop: { group: { by: 'g', limit: 2 }, run: async () => { await sleep(5); } },
    });
    for (let n = 0; n < 60; n++) await insertJob(t.db.sql, { kind: 'noop', payload: { g: 'a', n } });
    rt.start();
    await waitFor(async () => (await t.db.sql<{ n: number }[]>`select count(*)::int as n from jobs`)[0]?.n === 0, 20_000);
    await rt.stop(1000);
    const full = seen.rows.filter((r) => r > 0).length;
    const empty = seen.rows.length - full;
    assert.ok(full >= 2, `${full} claims found jobs`);
    assert.ok(empty <= full + 1, `${empty} claims found nothing, ${full} found jobs (${seen.rows.join(' ')})`);
  });
});
