import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PasswordHasher } from '../src/auth/passwords.ts';
import { AppError } from '../src/errors.ts';

test('hashes use OWASP scrypt parameters by default and verify in constant time', async () => {
  const hasher = new PasswordHasher(17, 2, 10);
  const hash = await hasher.hash('contraseña segura');
  assert.match(hash, /^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  assert.equal(await hasher.verify('contraseña segura', hash), true);
  assert.equal(await hasher.verify('contraseña segurA', hash), false);
  assert.notEqual(await hasher.hash('contraseña segura'), hash, 'salted');
});

test('a malformed stored hash never matches and never throws', async () => {
  const hasher = new PasswordHasher(12, 2, 10);
  for (const bad of ['', 'plain', '$scrypt$ln=99,r=8,p=1$AAAA$AAAA', '$scrypt$ln=12,r=8,p=1$$', '$argon2id$v=19$x']) {
    assert.equal(await hasher.verify('x', bad), false, bad);
  }
});

test('weaker hashes are flagged for rehashing', async () => {
  const weak = await new PasswordHasher(12, 1, 1).hash('pw');
  assert.equal(new PasswordHasher(14, 1, 1).needsRehash(weak), true);
  assert.equal(new PasswordHasher(12, 1, 1).needsRehash(weak), false);
});

test('concurrent hashing is capped and excess load is shed with 503', async () => {
  const hasher = new PasswordHasher(14, 1, 2);
  const results = await Promise.allSettled(Array.from({ length: 6 }, () => hasher.hash('pw')));
  const shed = results.filter((r) => r.status === 'rejected');
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3, 'one running plus two queued');
  assert.equal(shed.length, 3);
  for (const r of shed) assert.equal(((r as PromiseRejectedResult).reason as AppError).code, 'SERVICE_UNAVAILABLE');
});

test('an unknown email checks against a stand-in hash that a full queue cannot break for later sign-ins', async () => {
  const hasher = new PasswordHasher(12, 1, 0);
  const busy = hasher.hash('occupies the only slot');
  await assert.rejects(hasher.verifyAgainstDummy('whatever'), (err: AppError) => err.code === 'SERVICE_UNAVAILABLE');
  await busy;
  assert.equal(await hasher.verifyAgainstDummy('whatever'), false, 'once the queue has room, unknown emails are answered again');
});
