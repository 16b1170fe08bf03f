import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../src/db/migrate.ts';
import { formatEncf } from '../src/ecf/encf.ts';
import { createLogger } from '../src/log.ts';
import type { RangeRow } from '../src/sequences/queries.ts';
import { MAX_WALK_BATCH, walkRange, type UsedEncfs } from '../src/sequences/walk.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

// Issue 28, item 2 (loops over numbers): a range registered over numbers documents already use
// is walked past them. One query per used number let a range over a long run of them turn every
// GET /{env}/secuencias (which peeks at the next number) into that many queries.

let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, createLogger('silent'));
});
after(() => t.close());

function range(nextValue: number, hasta: number): RangeRow {
  return { id: '00000000-0000-4000-8000-000000000000', tenantId: 1, environment: 'TesteCF', tipo: 31, desde: 1, hasta, fechaVencimiento: null, nextValue, remaining: hasta - nextValue + 1, createdAt: new Date() };
}

/** Numbers 1..upTo in use; counts the questions asked. */
function usedUpTo(upTo: number): { used: UsedEncfs; calls: () => number; asked: () => number } {
  let calls = 0;
  let asked = 0;
  return {
    used: async (_tx, _tenant, _env, encfs) => {
      calls++;
      asked += encfs.length;
      return new Set(encfs.filter((e) => Number(e.slice(3)) <= upTo));
    },
    calls: () => calls,
    asked: () => asked,
  };
}

test('a run of 20,000 numbers in use is passed in a few dozen queries, and the next free number is the one given', async () => {
  const probe = usedUpTo(20_000);
  const walked = await walkRange(t.db.sql, range(1, 1_000_000), 1, probe.used);
  assert.deepEqual(walked.encfs, [formatEncf(31, 20_001)]);
  assert.equal(walked.nextValue, 20_002);
  assert.ok(probe.calls() <= 40, `${probe.calls()} queries`);
  assert.ok(probe.asked() <= 20_000 + 2 * MAX_WALK_BATCH, `${probe.asked()} numbers asked about`);
});

test('a bigger batch never skips a free number: the position stops right after the last one given', async () => {
  const probe = usedUpTo(10);
  const first = await walkRange(t.db.sql, range(1, 1_000), 3, probe.used);
  assert.deepEqual(first.encfs, [11, 12, 13].map((n) => formatEncf(31, n)));
  assert.equal(first.nextValue, 14);
  const next = await walkRange(t.db.sql, { ...range(first.nextValue, 1_000), remaining: first.remaining }, 2, probe.used);
  assert.deepEqual(next.encfs, [14, 15].map((n) => formatEncf(31, n)));
  assert.equal(next.nextValue, 16);
  // Without the check (the batcher's first try) exactly `want` numbers are given.
  const unchecked = await walkRange(t.db.sql, range(1, 1_000), 4, null);
  assert.deepEqual(unchecked.encfs, [1, 2, 3, 4].map((n) => formatEncf(31, n)));
  assert.equal(unchecked.nextValue, 5);
});

test('walking off the end of a range that is all in use gives nothing and leaves nothing', async () => {
  const probe = usedUpTo(5_000);
  const walked = await walkRange(t.db.sql, range(1, 5_000), 1, probe.used);
  assert.deepEqual(walked.encfs, []);
  assert.equal(walked.remaining, 0);
  assert.equal(walked.nextValue, 5_001);
});
