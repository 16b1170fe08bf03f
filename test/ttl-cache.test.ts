import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TtlCache } from '../src/lib/ttl-cache.ts';

test('entries expire after their time to live', () => {
  const c = new TtlCache<string>(100, 10);
  c.set('a', 'x', 0);
  assert.equal(c.get('a', 99), 'x');
  assert.equal(c.get('a', 100), undefined);
});

test('the cache never holds more than its maximum, and recent entries survive', () => {
  const c = new TtlCache<number>(60_000, 100);
  for (let i = 0; i < 10_000; i++) c.set(`k${i}`, i, 0);
  let held = 0;
  for (let i = 0; i < 10_000; i++) if (c.get(`k${i}`, 1) !== undefined) held++;
  assert.ok(held <= 100 && held >= 50, `${held} entries held`);
  assert.equal(c.get('k9999', 1), 9999);
});

test('delete removes an entry from either generation, and a zero TTL caches nothing', () => {
  const c = new TtlCache<number>(60_000, 4);
  c.set('old', 1, 0);
  c.set('b', 2, 0);
  c.set('c', 3, 0); // rotates: 'old' and 'b' are now the previous generation
  c.delete('old');
  assert.equal(c.get('old', 1), undefined);
  assert.equal(c.get('b', 1), 2);
  const none = new TtlCache<number>(0, 4);
  none.set('x', 1);
  assert.equal(none.get('x'), undefined);
});
