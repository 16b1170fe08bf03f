import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { asStoredJsonb, compareJsonbKeys } from '../src/db/jsonb-order.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
});
after(() => t.close());

/** Keys of every length class and byte order that trips a naive sort: multibyte, integer-like, prefixes, case. */
const KEYS = ['b', 'B', 'a', '9', '10', '01', 'ab', 'aa', 'ñ', 'n', 'ñu', 'nu', 'é', 'ee', '€', 'zzz', 'Zz', '__proto__', 'pedido_id', 'pedidoId', '😀', 'a😀', ' ', ''];

test('compareJsonbKeys orders keys as a jsonb column lists them', async () => {
  const object = Object.fromEntries(KEYS.map((k, i) => [k, String(i)]));
  const [row] = await t.db.sql<{ keys: string[] }[]>`select array(select jsonb_object_keys(${JSON.stringify(object)}::text::jsonb)) as keys`;
  assert.deepEqual([...KEYS].sort(compareJsonbKeys), row?.keys);
});

test('asStoredJsonb gives the object a jsonb column reads back, key order included', async () => {
  const text = `{${KEYS.map((k, i) => `${JSON.stringify(k)}:"${i}"`).join(',')}}`;
  const sent = JSON.parse(text) as Record<string, string>;
  const [row] = await t.db.sql<{ v: string }[]>`select (${text}::text::jsonb)::text as v`;
  const readBack = JSON.parse(row?.v ?? '') as Record<string, string>;
  const built = asStoredJsonb(sent);
  assert.equal(JSON.stringify(built), JSON.stringify(readBack));
  assert.ok(Object.hasOwn(built, '__proto__'), '"__proto__" stays an own key');
  assert.equal(Object.getPrototypeOf(built), Object.prototype);
});
