import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';
import { ipBuckets, ipRateKey } from '../src/ratelimit/client-key.ts';
import { RateLimits } from '../src/ratelimit/limiter.ts';
import { SEEN_FACTOR } from '../src/ratelimit/ipv6-widening.ts';
import { TokenBucketLimiter } from '../src/ratelimit/token-bucket.ts';
import { call, newTenant } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';

describe('token bucket', () => {
  test('a bucket allows its capacity at once, then refills continuously', () => {
    const b = new TokenBucketLimiter(10, 60_000, 100);
    for (let i = 0; i < 10; i++) assert.equal(b.take('k', 0).allowed, true);
    const refused = b.take('k', 0);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSec, 6, 'one token every 6 s at 10/min');
    assert.equal(b.take('k', 5_999).allowed, false);
    assert.equal(b.take('k', 6_000 + 5_999).allowed, true);
  });

  test('Retry-After is never 0 when refused', () => {
    const b = new TokenBucketLimiter(600, 60_000, 100);
    for (let i = 0; i < 600; i++) b.take('k', 0);
    const d = b.take('k', 99);
    assert.equal(d.allowed, false);
    assert.equal(d.retryAfterSec, 1);
  });

  test('memory stays bounded: never more than maxKeys, and idle buckets go after a window', () => {
    const b = new TokenBucketLimiter(5, 60_000, 1000);
    for (let i = 0; i < 5000; i++) {
      b.take(`ip-${i}`, i);
      assert.ok(b.size <= 1000);
    }
    b.take('late', 3 * 60_000);
    b.take('later', 4 * 60_000 + 1);
    assert.equal(b.size, 2, 'buckets idle for whole windows are forgotten');
  });

  test('a limited client stays limited while it keeps calling, however many other keys pass by', () => {
    const b = new TokenBucketLimiter(2, 60_000, 100);
    b.take('abuser', 0);
    b.take('abuser', 0);
    for (let i = 0; i < 1000; i++) {
      b.take(`other-${i}`, 1);
      if (i % 40 === 0) assert.equal(b.take('abuser', 1).allowed, false, `still refused after ${i} other keys`);
    }
  });

  test('keys are independent', () => {
    const b = new TokenBucketLimiter(1, 60_000, 100);
    assert.equal(b.take('a', 0).allowed, true);
    assert.equal(b.take('a', 0).allowed, false);
    assert.equal(b.take('b', 0).allowed, true);
  });
});

describe('client keys of per-IP limits', () => {
  test('IPv6 clients are keyed by their /64: two addresses of one /64 share a bucket, other /64s and IPv4 do not', () => {
    assert.equal(ipRateKey('2001:db8:1:2::a'), '2001:db8:1:2::/64');
    assert.equal(ipRateKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(ipRateKey('2001:db8:1:2:3:4:5.6.7.8'), '2001:db8:1:2::/64');
    assert.notEqual(ipRateKey('2001:db8:1:3::a'), ipRateKey('2001:db8:1:2::a'));
    assert.equal(ipRateKey('::1'), '0:0:0:0::/64');
    assert.equal(ipRateKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(ipRateKey('64:ff9b::203.0.113.5'), '64:ff9b:0:0::/64');
    // IPv4, also mapped into IPv6 (dotted or not), keeps one bucket per address.
    assert.equal(ipRateKey('203.0.113.5'), '203.0.113.5');
    assert.equal(ipRateKey('::ffff:203.0.113.5'), '203.0.113.5');
    assert.equal(ipRateKey('::ffff:cb00:7105'), '203.0.113.5');
    assert.equal(ipRateKey('unknown'), 'unknown');
  });

  test('an IPv6 address also names its /48; IPv4 has none', () => {
    assert.deepEqual(ipBuckets('2001:db8:1:2::a'), { narrow: '2001:db8:1:2::/64', wide: '2001:db8:1::/48' });
    assert.deepEqual(ipBuckets('203.0.113.5'), { narrow: '203.0.113.5', wide: null });
    assert.deepEqual(ipBuckets('::ffff:203.0.113.5'), { narrow: '203.0.113.5', wide: null });
  });

  test('once several /64s of a /48 are refused, the whole /48 shares one bucket, until it behaves for ten windows', () => {
    const limits = new RateLimits({ ...loadConfig({}).rateLimits, publicAuthPerMinute: 1, ipv6WidenAfter: 3 });
    const allowed = (ip: string, now: number) => {
      try {
        limits.consumeIp('publicAuth', ip, now);
        return true;
      } catch {
        return false;
      }
    };
    for (const net of ['1', '2']) {
      assert.equal(allowed(`2001:db8:aa:${net}::1`, 0), true);
      assert.equal(allowed(`2001:db8:aa:${net}::2`, 0), false);
    }
    assert.equal(allowed('2001:db8:aa:9::1', 0), true, 'two limited /64s: the next one is still its own client');
    assert.equal(allowed('2001:db8:aa:9::1', 0), false, 'the third limited /64');
    assert.equal(allowed('2001:db8:aa:4::1', 0), true, 'the /48 bucket: one request');
    assert.equal(allowed('2001:db8:aa:5::1', 0), false, 'another /64 of the /48 shares it');
    assert.equal(allowed('2001:db8:aa:ffff::1', 1), false);
    assert.equal(allowed('2001:db8:bb:1::1', 1), true, 'another /48 is untouched');
    assert.equal(allowed('198.51.100.1', 1), true);
    // Nine windows on, the shared bucket has refilled, and is still shared; its refusal keeps the /48 widened.
    assert.equal(allowed('2001:db8:aa:6::1', 9 * 60_000), true);
    assert.equal(allowed('2001:db8:aa:7::1', 9 * 60_000), false, 'still one bucket');
    // Ten windows after that last refusal, its /64s are their own clients again.
    assert.equal(allowed('2001:db8:aa:7::1', 19 * 60_000 + 1), true);
    assert.equal(allowed('2001:db8:aa:8::1', 19 * 60_000 + 1), true);
  });

  test('a /48 whose /64s each stay under their limit is widened once many of them ask within a window', () => {
    const limits = new RateLimits({ ...loadConfig({}).rateLimits, publicAuthPerMinute: 2, ipv6WidenAfter: 2 });
    const allowed = (ip: string, now: number) => {
      try {
        limits.consumeIp('publicAuth', ip, now);
        return true;
      } catch {
        return false;
      }
    };
    // Each /64 asks once, under its limit of 2: refusals alone would never widen this /48.
    const seenLimit = 2 * SEEN_FACTOR;
    for (let net = 1; net <= seenLimit; net++) assert.equal(allowed(`2001:db8:cc:${net.toString(16)}::1`, 0), true, `/64 number ${net}`);
    assert.equal(allowed(`2001:db8:cc:${(seenLimit + 1).toString(16)}::1`, 0), true, 'the /48 bucket, fresh: one');
    assert.equal(allowed(`2001:db8:cc:${(seenLimit + 2).toString(16)}::1`, 0), true, 'two');
    assert.equal(allowed(`2001:db8:cc:${(seenLimit + 3).toString(16)}::1`, 0), false, 'one more /64 of the /48 shares the spent bucket');
    assert.equal(allowed('2001:db8:dd:1::1', 0), true, 'another /48 is untouched');
  });
});

describe('rate limits over HTTP', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ env: { RATE_LIMIT_DEFAULT_PER_MINUTE: '5', RATE_LIMIT_SENSITIVE_PER_MINUTE: '2' } });
  });
  after(() => t.close());

  test('the 21st login in a minute from one IP is 429 with Retry-After and RateLimit fields', async () => {
    // All at once: a bucket refills one token every 3 s, so 21 logins in a row on a loaded machine
    // (each answered only after a password check's time) could see a token come back.
    const answers = await Promise.all(Array.from({ length: 21 }, (_, i) =>
      // Other emails each time: the per-account limit is not what this counts.
      call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: `nobody${i}@example.com`, password: 'whatever it is' } })));
    const refused = answers.filter((a) => a.status === 429);
    assert.deepEqual(answers.map((a) => a.status).sort(), [...Array(20).fill(401), 429]);
    const last = refused[0];
    assert.equal(last?.body.error.code, 'RATE_LIMITED');
    assert.ok(Number(last?.headers.get('retry-after')) >= 1);
    assert.equal(last?.headers.get('ratelimit-policy'), '"publicAuth";q=20;w=60');
    assert.match(last?.headers.get('ratelimit') ?? '', /^"publicAuth";r=0;t=\d+$/);
  });

  // Each with another email, so that only the per-IP limit is at work.
  let attempt = 0;
  const login = (url: string, forwardedFor: string) =>
    call(url, 'POST', '/TesteCF/customer/authentication', { json: { email: `nobody${++attempt}@example.com`, password: 'whatever it is' }, headers: { 'x-forwarded-for': forwardedFor } });

  test('TRUST_PROXY=0 ignores X-Forwarded-For: every login from this socket counts against one bucket', async () => {
    const direct = await startTestService({ database: t.database, env: { TRUST_PROXY: '0', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '2' } });
    try {
      const statuses = [];
      for (const forwarded of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) statuses.push((await login(direct.url, forwarded)).status);
      assert.deepEqual(statuses, [401, 401, 429]);
    } finally {
      await direct.close();
    }
  });

  test('TRUST_PROXY=1 keys public authentication by the forwarded address, IPv6 by its /64', async () => {
    const proxied = await startTestService({ database: t.database, env: { TRUST_PROXY: '1', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '2' } });
    try {
      // The client chose the left entry; the proxy appended the right one.
      assert.equal((await login(proxied.url, '10.0.0.1, 198.51.100.7')).status, 401);
      assert.equal((await login(proxied.url, '10.0.0.2, 198.51.100.7')).status, 401);
      assert.equal((await login(proxied.url, '10.0.0.3, 198.51.100.7')).status, 429, 'the forwarded address is out of tokens');
      assert.equal((await login(proxied.url, '198.51.100.8')).status, 401, 'another forwarded address has its own bucket');
      assert.equal((await login(proxied.url, '2001:db8:1:2::a')).status, 401);
      assert.equal((await login(proxied.url, '2001:db8:1:2:ffff::b')).status, 401);
      assert.equal((await login(proxied.url, '2001:db8:1:2::c')).status, 429, 'one /64, one bucket');
      assert.equal((await login(proxied.url, '2001:db8:1:3::a')).status, 401, 'the next /64 is another client');
    } finally {
      await proxied.close();
    }
  });

  test('TRUST_PROXY=1 keys an IPv6 /48 as one client once three of its /64s are limited', async () => {
    const proxied = await startTestService({ database: t.database, env: { TRUST_PROXY: '1', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '2', RATE_LIMIT_IPV6_WIDEN_AFTER: '3' } });
    try {
      for (const net of ['1', '2', '3']) {
        const statuses = [];
        for (const host of ['a', 'b', 'c']) statuses.push((await login(proxied.url, `2001:db8:77:${net}::${host}`)).status);
        assert.deepEqual(statuses, [401, 401, 429], `/64 number ${net}`);
      }
      assert.equal((await login(proxied.url, '2001:db8:77:4::a')).status, 401, 'the /48 bucket, fresh');
      assert.equal((await login(proxied.url, '2001:db8:77:5::a')).status, 401);
      const refused = await login(proxied.url, '2001:db8:77:6::a');
      assert.equal(refused.status, 429, 'a /64 never seen before shares the /48 bucket');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal((await login(proxied.url, '2001:db8:78:1::a')).status, 401, 'the next /48 is another client');
    } finally {
      await proxied.close();
    }
  });

  test('tenant scopes are per tenant, and a route counts against its own scope only', async () => {
    const other = await startTestService({ database: t.database, env: { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '100', RATE_LIMIT_DEFAULT_PER_MINUTE: '5', RATE_LIMIT_SENSITIVE_PER_MINUTE: '2' } });
    try {
      const a = await newTenant(other.url);
      const b = await newTenant(other.url);
      const get = (tok: string) => call(other.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${tok}` } });
      const first = await get(a.accessToken);
      assert.equal(first.headers.get('ratelimit-policy'), '"default";q=5;w=60');
      // newTenant widened its API key's environments with one request of this scope already.
      assert.equal(first.headers.get('ratelimit'), '"default";r=3;t=24');
      for (let i = 0; i < 3; i++) assert.equal((await get(a.accessToken)).status, 200);
      assert.equal((await get(a.accessToken)).status, 429);
      assert.equal((await get(b.accessToken)).status, 200, 'tenant b has its own bucket');
      // The sensitive scope is separate from the exhausted default one.
      const change = await call(other.url, 'POST', '/api/account/password', { json: { currentPassword: 'wrong password', newPassword: 'whatever whatever' }, headers: { authorization: `Bearer ${a.accessToken}` } });
      assert.equal(change.status, 401);
      assert.equal(change.headers.get('ratelimit-policy'), '"sensitive";q=2;w=60');
    } finally {
      await other.close();
    }
  });
});
