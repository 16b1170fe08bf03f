import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PasswordHasher } from '../src/auth/passwords.ts';
import { AppError } from '../src/errors.ts';

const OWNER = { tenant: 't1', account: 'a1' };

test('hashes use OWASP scrypt parameters by default and verify in constant time', async () => {
  const hasher = new PasswordHasher(17, 2, 10);
  const hash = await hasher.hash('contraseña segura');
  assert.match(hash, /^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  assert.equal(await hasher.verify('contraseña segura', hash, OWNER), true);
  assert.equal(await hasher.verify('contraseña segurA', hash, OWNER), false);
  assert.notEqual(await hasher.hash('contraseña segura'), hash, 'salted');
});

test('a malformed stored hash never matches and never throws', async () => {
  const hasher = new PasswordHasher(12, 2, 10);
  for (const bad of ['', 'plain', '$scrypt$ln=99,r=8,p=1$AAAA$AAAA', '$scrypt$ln=12,r=8,p=1$$', '$argon2id$v=19$x']) {
    assert.equal(await hasher.verify('x', bad, OWNER), false, bad);
  }
});

test('weaker hashes are flagged for rehashing', async () => {
  const weak = await new PasswordHasher(12, 1, 1).hash('pw');
  assert.equal(new PasswordHasher(14, 1, 1).needsRehash(weak), true);
  assert.equal(new PasswordHasher(12, 1, 1).needsRehash(weak), false);
});

test('concurrent hashing is capped and excess load is shed with 503', async () => {
  const hasher = new PasswordHasher(14, 1, 2);
  const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => hasher.hash('pw', { tenant: 'registration', account: `new${i}` })));
  const shed = results.filter((r) => r.status === 'rejected');
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3, 'one running plus two queued');
  assert.equal(shed.length, 3);
  for (const r of shed) assert.equal(((r as PromiseRejectedResult).reason as AppError).code, 'SERVICE_UNAVAILABLE');
});

test('an unknown email is answered even while the known accounts\' queue is full, and never waits in it', async () => {
  const hasher = new PasswordHasher(12, 1, 0);
  const busy = hasher.hash('occupies the only slot');
  await assert.rejects(hasher.hash('no room left'), (err: AppError) => err.code === 'SERVICE_UNAVAILABLE');
  assert.equal(await hasher.verifyAgainstDummy('whatever'), false, 'its own lane, not the full queue');
  await busy;
  assert.equal(await hasher.verifyAgainstDummy('whatever'), false);
});

test('unknown emails hash one at a time: the rest of a burst waits out a measured duration without hashing', async () => {
  const hasher = new PasswordHasher(12, 1, 10, 1000);
  const results = await Promise.all(Array.from({ length: 20 }, () => hasher.verifyAgainstDummy('guess')));
  assert.ok(results.every((r) => r === false));
  assert.deepEqual(hasher.stats(), { unknownHashed: 1, unknownDelayed: 19 });
});

test('unknown emails beyond the per-minute budget cost no hash, and still take as long as a real check', async () => {
  // 2^15: tens of milliseconds a hash, far above timer and scheduling noise.
  const hasher = new PasswordHasher(15, 1, 10, 2);
  const stored = await hasher.hash('the right password');
  const timed = async (work: () => Promise<boolean>) => {
    const started = performance.now();
    assert.equal(await work(), false);
    return performance.now() - started;
  };
  const known: number[] = [];
  for (let i = 0; i < 3; i++) known.push(await timed(() => hasher.verify('a wrong password', stored, OWNER)));
  const unknown: number[] = [];
  for (let i = 0; i < 8; i++) unknown.push(await timed(() => hasher.verifyAgainstDummy('a wrong password')));
  assert.deepEqual(hasher.stats(), { unknownHashed: 2, unknownDelayed: 6 }, 'two hashes, the budget; the rest delayed');
  const fastest = Math.min(...known, ...unknown.slice(0, 2));
  const slowest = Math.max(...known, ...unknown.slice(0, 2));
  for (const ms of unknown.slice(2)) {
    assert.ok(ms >= fastest * 0.9 - 2, `a delayed answer took ${ms.toFixed(1)} ms, real checks ${fastest.toFixed(1)}–${slowest.toFixed(1)} ms`);
    assert.ok(ms <= slowest + 1000, `a delayed answer took ${ms.toFixed(1)} ms`);
  }
});

test('hashes waiting are served round-robin by tenant: one tenant\'s flood of wrong passwords delays another tenant by one hash, not by the flood', async () => {
  const hasher = new PasswordHasher(13, 1, 100);
  const stored = await hasher.hash('right', { tenant: 'b', account: 'owner-b' });
  const finished: string[] = [];
  const attempt = (tenant: string, account: string, password: string) =>
    hasher.verify(password, stored, { tenant, account }).then(() => finished.push(`${tenant}:${account}`));
  // Tenant A: three known accounts, three wrong passwords each, sent at once.
  const flood = ['x', 'y', 'z'].flatMap((account) => [1, 2, 3].map(() => attempt('a', account, 'wrong')));
  const owner = attempt('b', 'owner-b', 'right');
  await Promise.all([...flood, owner]);
  assert.equal(finished.length, 10);
  assert.ok(finished.indexOf('b:owner-b') <= 2, `tenant b finished at position ${finished.indexOf('b:owner-b')} of ${finished.join(', ')}`);
});

test('an account may have only a few hashes waiting; more are shed at once, and other accounts are not', async () => {
  const hasher = new PasswordHasher(13, 1, 100);
  const stored = await hasher.hash('right', { tenant: 't', account: 'a' });
  const results = await Promise.allSettled(Array.from({ length: 6 }, () => hasher.verify('wrong', stored, { tenant: 't', account: 'a' })));
  const shed = results.filter((r) => r.status === 'rejected');
  assert.equal(shed.length, 3, 'three at a time for one account');
  for (const r of shed) assert.equal(((r as PromiseRejectedResult).reason as AppError).code, 'SERVICE_UNAVAILABLE');
  assert.equal(await hasher.verify('right', stored, { tenant: 't', account: 'b' }), true, 'another account of the same tenant');
});
