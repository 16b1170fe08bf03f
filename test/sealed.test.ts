import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sealable } from '../src/db/sealed.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
});
after(() => t.close());

test('a sealable transaction handle runs statements until sealed, then refuses every one and their helpers', async () => {
  const refused: string[] = [];
  const ran = await t.db.sql.begin(async (raw) => {
    const { tx, seal } = sealable(raw);
    const before = [
      (await tx`select ${1}::int as n`)[0]?.n,
      (await tx.unsafe('select 2 as n'))[0]?.n,
      (await tx`select * from (values (3)) as v(n) where n = any(${tx.array([3])}::int[])`)[0]?.n,
    ];
    seal();
    const attempts: [string, () => unknown][] = [
      ['tagged template', () => tx`select 4`],
      ['unsafe', () => tx.unsafe('select 5')],
      ['helper', () => tx({ n: 6 })],
      ['array', () => tx.array([7])],
    ];
    for (const [name, attempt] of attempts) {
      assert.throws(attempt, /after its COMMIT was sent/, name);
      refused.push(name);
    }
    // The transaction itself is untouched: the raw handle still works.
    before.push((await raw`select 8 as n`)[0]?.n);
    return before;
  });
  assert.deepEqual(ran, [1, 2, 3, 8]);
  assert.deepEqual(refused, ['tagged template', 'unsafe', 'helper', 'array']);
});
