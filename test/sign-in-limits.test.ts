import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, newTenant } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';

// Sign-in is limited per account as well as per address, and a flood of made-up emails
// cannot crowd real sign-ins out of the password hashing.

let t: TestService;
before(async () => {
  t = await startTestService({ env: { TRUST_PROXY: '1', RATE_LIMIT_SIGNIN_PER_ACCOUNT_PER_MINUTE: '3', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000' } });
});
after(() => t.close());

let host = 0;
/** A sign-in from an address of its own (X-Forwarded-For, TRUST_PROXY=1), so only the per-account limit is at work. */
const signIn = (url: string, email: string, password: string) =>
  call(url, 'POST', '/TesteCF/customer/authentication', { json: { email, password }, headers: { 'x-forwarded-for': `198.51.100.${++host % 250}, 203.0.113.${host % 7}` } });

describe('per-account sign-in limit', () => {
  test('failed sign-ins are counted on the email whatever the address, then 429 with Retry-After', async () => {
    const a = await newTenant(t.url);
    for (let i = 0; i < 3; i++) assert.equal((await signIn(t.url, a.email, 'not the password')).status, 401);
    const refused = await signIn(t.url, a.email, 'not the password');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'RATE_LIMITED');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(refused.headers.get('ratelimit-policy'), '"signInAccount";q=3;w=60');
    // The same account however the email is written, and the right password waits too: otherwise a 200 among 429s would confirm a guess.
    assert.equal((await signIn(t.url, `  ${a.email.toUpperCase()} `, a.password)).status, 429);
    const b = await newTenant(t.url);
    assert.equal((await signIn(t.url, b.email, b.password)).status, 200, 'another account is untouched');
  });

  test('failures from elsewhere never keep the owner out of an address it signed in from: no lockout by email', async () => {
    const a = await newTenant(t.url); // signs in from the test's own address (no X-Forwarded-For: 127.0.0.1)
    for (let i = 0; i < 3; i++) assert.equal((await signIn(t.url, a.email, 'not the password')).status, 401);
    assert.equal((await signIn(t.url, a.email, 'not the password')).status, 429, 'elsewhere, the account\'s budget is spent');
    const home = await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: a.password } });
    assert.equal(home.status, 200, 'its known-good address still signs in');
    assert.equal((await signIn(t.url, a.email, a.password)).status, 429, 'an address it never signed in from waits like the attacker');
  });

  test('an email no user has is limited alike, so a 429 tells nothing about it', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await signIn(t.url, 'nobody-at-all@example.com', 'a guess at it')).status);
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  });

  test('successful sign-ins do not count', async () => {
    const a = await newTenant(t.url);
    for (let i = 0; i < 6; i++) assert.equal((await signIn(t.url, a.email, a.password)).status, 200, `sign-in ${i + 1}`);
    assert.equal((await signIn(t.url, a.email, 'not the password')).status, 401, 'failures still have their budget');
  });
});

describe('password hashing under a flood of unknown emails', () => {
  let s: TestService;
  before(async () => {
    // Real hashes of tens of milliseconds; one at a time for known accounts; per-IP limits as in production.
    s = await startTestService({ database: t.database, env: { TRUST_PROXY: '1', SCRYPT_LOG_N: '15', SCRYPT_MAX_CONCURRENT: '1' } });
  });
  after(() => s.close());

  test('a flood from many addresses, each within its limit, neither refuses nor delays a real sign-in, and is answered no faster than one', async () => {
    const a = await newTenant(s.url);
    const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
      const started = performance.now();
      const value = await work();
      return { value, ms: performance.now() - started };
    };
    const baseline: number[] = [];
    for (let i = 0; i < 3; i++) {
      const wrong = await timed(() => call(s.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: 'not the password' }, headers: { 'x-forwarded-for': '192.0.2.1' } }));
      assert.equal(wrong.value.status, 401);
      baseline.push(wrong.ms);
    }
    // Twelve addresses, fifteen made-up emails each: under the per-IP limit of 20 a minute.
    let answered = 0;
    let someAnswered: () => void = () => {};
    const twentyAnswered = new Promise<void>((resolve) => {
      someAnswered = resolve;
    });
    const flood = Array.from({ length: 180 }, (_, i) => timed(() => call(s.url, 'POST', '/TesteCF/customer/authentication', {
      json: { email: `made-up-${i}@example.com`, password: 'a guess' },
      headers: { 'x-forwarded-for': `203.0.113.${i % 12}` },
    })).finally(() => {
      if (++answered === 20) someAnswered();
    }));
    // By then the server holds the rest of the flood: with one hashing queue, they would all be ahead of the real sign-in.
    await twentyAnswered;
    const real = await timed(() => call(s.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: a.password }, headers: { 'x-forwarded-for': '192.0.2.2' } }));
    const answers = await Promise.all(flood);

    assert.equal(real.value.status, 200, real.value.text);
    const slowestBaseline = Math.max(...baseline);
    assert.ok(real.ms < 5 * slowestBaseline + 1000, `the real sign-in took ${real.ms.toFixed(0)} ms; a wrong password took ${slowestBaseline.toFixed(0)} ms before the flood`);
    const statuses = new Set(answers.map((r) => r.value.status));
    assert.deepEqual([...statuses], [401], 'every made-up email is refused as a wrong password would be (no 503)');
    const fastestBaseline = Math.min(...baseline);
    const fastestFlood = Math.min(...answers.map((r) => r.ms));
    assert.ok(fastestFlood >= 0.3 * fastestBaseline, `a made-up email was answered in ${fastestFlood.toFixed(0)} ms, a wrong password takes ${fastestBaseline.toFixed(0)} ms`);
  });
});
