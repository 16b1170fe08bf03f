import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchLoader, loaderPerOwner } from '../src/lib/batch-loader.ts';

describe('BatchLoader', () => {
  it('batch loader loads the keys asked for in one turn with one call, each waiter getting its own value', async () => {
    const calls: string[][] = [];
    const loader = new BatchLoader<string, number>(async (keys) => {
      calls.push(keys);
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, k.length]));
    });
    const [a, b, again, missing] = await Promise.all([loader.get('a'), loader.get('bb'), loader.get('a'), loader.get('missing')]);
    assert.deepEqual([a, b, again, missing], [1, 2, 1, undefined]);
    assert.deepEqual(calls, [['a', 'bb', 'missing']]);
    assert.equal(await loader.get('ccc'), 3);
    assert.equal(calls.length, 2, 'a later turn is a new batch');
  });

  it('batch loader splits at its maximum batch and rejects every waiter of a failed load', async () => {
    const sizes: number[] = [];
    const loader = new BatchLoader<number, number>(async (keys) => {
      sizes.push(keys.length);
      if (keys.includes(7)) throw new Error('load failed');
      return new Map(keys.map((k) => [k, k * 2]));
    }, 5);
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => loader.get(i)));
    assert.deepEqual(sizes, [5, 5, 2]);
    assert.deepEqual(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected')), [0, 2, 4, 6, 8, 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 20, 22]);
  });

  it('batch loader flushing on microtasks loads keys asked for across promise jobs together, before the event loop turns', async () => {
    const calls: number[][] = [];
    const loader = new BatchLoader<number, number>(async (keys) => {
      calls.push(keys);
      return new Map(keys.map((k) => [k, k + 1]));
    }, 100, 'microtasks');
    let turned = false;
    setImmediate(() => (turned = true));
    // Each asks after a different number of promise jobs, as the writes of one transaction do.
    const asked = [0, 1, 2, 3].map(async (k) => {
      for (let i = 0; i < k; i++) await Promise.resolve();
      return loader.get(k);
    });
    const loaded = new Promise<boolean>((resolve) => {
      const check = () => (calls.length > 0 ? resolve(turned) : process.nextTick(check));
      process.nextTick(check);
    });
    assert.equal(await loaded, false, 'loaded before the event loop turned');
    assert.deepEqual(await Promise.all(asked), [1, 2, 3, 4]);
    assert.deepEqual(calls, [[0, 1, 2, 3]]);
  });

  it('a serial batch loader runs one load at a time, the keys asked for meanwhile going together in the next', async () => {
    const calls: number[][] = [];
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const loader = new BatchLoader<number, number>(async (keys) => {
      calls.push(keys);
      most = Math.max(most, ++running);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
      return new Map(keys.map((k) => [k, k * 10]));
    }, 3, 'turn', true);
    const first = loader.get(1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls, [[1]], 'the first key goes at the end of its turn');
    // Asked for in later turns while the first load runs: they wait for it.
    const later: Promise<number | undefined>[] = [];
    for (const k of [2, 3, 4, 5]) {
      later.push(loader.get(k));
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(calls.length, 1, 'no second load while the first runs');
    gates.shift()?.();
    assert.equal(await first, 10);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls, [[1], [2, 3, 4]], 'the keys that waited, up to the maximum batch, in one load');
    gates.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    gates.shift()?.();
    assert.deepEqual(await Promise.all(later), [20, 30, 40, 50]);
    assert.deepEqual(calls, [[1], [2, 3, 4], [5]]);
    assert.equal(most, 1, 'never two loads at once');
  });

  it('loaderPerOwner makes one loader per owner, on first use', () => {
    const per = loaderPerOwner<object, number, number>();
    let made = 0;
    const make = () => {
      made++;
      return new BatchLoader<number, number>(async (keys) => new Map(keys.map((k) => [k, k])));
    };
    const a = {};
    const b = {};
    assert.equal(per(a, make), per(a, make));
    assert.notEqual(per(a, make), per(b, make));
    assert.equal(made, 2);
  });
});
