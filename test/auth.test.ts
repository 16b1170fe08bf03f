import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { generateApiKey } from '../src/auth/api-keys.ts';
import { Authenticator } from '../src/auth/authenticator.ts';
import { signJwt } from '../src/auth/jwt.ts';
import { deriveKeys } from '../src/crypto/master-key.ts';
import { createLogger } from '../src/log.ts';
import { call, client, newTenant } from './helpers/http.ts';
import { startTestService, TEST_MASTER_KEY, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestService;
const jwtKey = deriveKeys(Buffer.from(TEST_MASTER_KEY, 'hex'))['jwt-signing'];

before(async () => {
  // The default CREDENTIAL_CACHE_MS: every revocation below must take effect at once all the same.
  t = await startTestService({ env: { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000' } });
  assert.equal(t.config.auth.credentialCacheMs, 10_000);
});
after(() => t.close());

function basic(user: string, password: string): string {
  return 'Basic ' + Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
}

describe('registration', () => {
  test('register creates a tenant, a user and an API key shown once', async () => {
    const res = await call(t.url, 'POST', '/TesteCF/customer/register', { json: { email: 'Reg@Example.com', password: 'a long enough password', name: 'Ferretería Ñoño SRL', rnc: '101234563' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    assert.equal(typeof res.body.data.tenant.id, 'number');
    assert.equal(res.body.data.user.email, 'reg@example.com');
    assert.match(res.body.data.apiKey.key, /^ecf_sk_[A-Za-z0-9]{16}_[A-Za-z0-9]{43}$/);
    const [row] = await t.sql`select key_hash from api_keys where id = ${res.body.data.apiKey.id}`;
    assert.equal((row?.keyHash as Buffer).length, 32, 'only the SHA-256 digest is stored');
    const [found] = await t.sql`select count(*)::int as count from api_keys where key_hash::text like ${'%' + res.body.data.apiKey.key + '%'}`;
    assert.equal(found?.count, 0);
  });

  test('register refuses a taken email and a taken RNC with 409', async () => {
    const a = await newTenant(t.url);
    const dupEmail = await call(t.url, 'POST', '/TesteCF/customer/register', { json: { email: a.email.toUpperCase(), password: 'another password!', name: 'X', rnc: '40212345678' } });
    assert.equal(dupEmail.status, 409);
    assert.equal(dupEmail.body.error.code, 'EMAIL_ALREADY_REGISTERED');
    const dupRnc = await call(t.url, 'POST', '/TesteCF/customer/register', { json: { email: 'other@example.com', password: 'another password!', name: 'X', rnc: a.rnc } });
    assert.equal(dupRnc.status, 409);
    assert.equal(dupRnc.body.error.code, 'RNC_ALREADY_REGISTERED');
  });

  test('an email with a control character is refused', async () => {
    for (const email of ['\u0001@x.yz', 'ana@exam\u007fple.com', 'ana@example.co\u0085m']) {
      const res = await call(t.url, 'POST', '/TesteCF/customer/register', { json: { email, password: 'a long enough password', name: 'X SRL', rnc: '101234571' } });
      assert.equal(res.status, 422, JSON.stringify(email));
      assert.deepEqual(res.body.error.details, [{ path: 'email', message: 'must be an email address' }]);
    }
  });

  test('register lists every invalid field', async () => {
    const res = await call(t.url, 'POST', '/eCF/customer/register', { json: { email: 'nope', password: 'short', rnc: '12345', colour: 'blue' } });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    const paths = res.body.error.details.map((d: { path: string }) => d.path).sort();
    assert.deepEqual(paths, ['colour', 'email', 'name', 'password', 'rnc']);
  });
});

describe('authentication', () => {
  test('Form A (JSON body) and Form B (Basic + X-API-KEY) both answer a token set', async () => {
    const a = await newTenant(t.url);
    const formA = await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: a.password } });
    assert.equal(formA.status, 200);
    assert.equal(formA.body.success, true);
    for (const k of ['accessToken', 'idToken', 'refreshToken']) assert.equal(typeof formA.body.data[k], 'string');
    assert.equal(formA.body.data.expiresIn, 3600);
    const formB = await call(t.url, 'POST', '/CerteCF/customer/authentication', { headers: { 'content-type': 'application/json', authorization: basic(a.email, a.password), 'x-api-key': a.apiKey } });
    assert.equal(formB.status, 200);
    const me = await call(t.url, 'GET', '/api/account', { headers: { authorization: `Bearer ${formB.body.data.accessToken}` } });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.user.email, a.email);
    assert.equal(me.body.data.user.passwordHash, undefined);
  });

  test('a wrong password or unknown email is 401 INVALID_CREDENTIALS', async () => {
    const a = await newTenant(t.url);
    for (const body of [{ email: a.email, password: 'wrong password!!' }, { email: 'nobody@example.com', password: a.password }]) {
      const res = await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: body });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_CREDENTIALS');
    }
    const basicWrong = await call(t.url, 'POST', '/TesteCF/customer/authentication', { headers: { authorization: basic(a.email, 'nope') } });
    assert.equal(basicWrong.status, 401);
  });

  test('malformed Basic credentials are 401 INVALID_CREDENTIALS, never 500', async () => {
    const values = [
      'Basic !!!notbase64', 'Basic ' + Buffer.from('no-colon').toString('base64'), 'Basic ' + Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString('base64'), 'Basic',
      'Basic ' + Buffer.from(':onlypassword').toString('base64'), 'Digest abc',
      // U+0000 cannot reach PostgreSQL text; other control characters are in no email.
      basic('a\0@b.c', 'pw'), basic('a@b.c', 'pass\0word'), basic('\u0001@x.yz', 'long password here'),
    ];
    for (const authorization of values) {
      const res = await call(t.url, 'POST', '/TesteCF/customer/authentication', { headers: { authorization } });
      assert.equal(res.status, 401, authorization);
      assert.equal(res.body.error.code, 'INVALID_CREDENTIALS');
    }
  });

  test('an X-API-KEY of another tenant beside the credentials is 403 FORBIDDEN', async () => {
    const a = await newTenant(t.url);
    const b = await newTenant(t.url);
    const res = await call(t.url, 'POST', '/TesteCF/customer/authentication', { headers: { authorization: basic(a.email, a.password), 'x-api-key': b.apiKey } });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'FORBIDDEN');
  });
});

describe('tokens', () => {
  test('refresh rotates: the new refresh token works once, the old one revokes the session', async () => {
    const a = await newTenant(t.url);
    const first = await call(t.url, 'POST', '/TesteCF/customer/refresh', { json: { refreshToken: a.refreshToken }, headers: { 'x-api-key': a.apiKey } });
    assert.equal(first.status, 200);
    assert.notEqual(first.body.data.refreshToken, a.refreshToken);
    const second = await call(t.url, 'POST', '/TesteCF/customer/refresh', { json: { refreshToken: first.body.data.refreshToken } });
    assert.equal(second.status, 200);
    // Used once, so this instance has cached the session as valid.
    for (const token of [a.accessToken, second.body.data.accessToken]) {
      assert.equal((await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${token}` } })).status, 200);
    }

    const reuse = await call(t.url, 'POST', '/TesteCF/customer/refresh', { json: { refreshToken: a.refreshToken } });
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.error.code, 'INVALID_TOKEN');
    // The whole family is gone: the newest refresh token and the access tokens too.
    const after = await call(t.url, 'POST', '/TesteCF/customer/refresh', { json: { refreshToken: second.body.data.refreshToken } });
    assert.equal(after.status, 401);
    for (const token of [a.accessToken, second.body.data.accessToken]) {
      const access = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(access.status, 401);
      assert.equal(access.body.error.code, 'INVALID_TOKEN');
    }
  });

  test('an expired access token is 401 TOKEN_EXPIRED', async () => {
    const a = await newTenant(t.url);
    const sid = JSON.parse(Buffer.from(a.accessToken.split('.')[1] as string, 'base64url').toString()).sid;
    const expired = signJwt({ iss: 'ecf-service', sub: '1', tid: a.tenantId, sid, typ: 'access' }, jwtKey, 60, Date.now() - 3_600_000);
    const res = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${expired}` } });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'TOKEN_EXPIRED');
  });

  test('tampered, alg:none, wrong-type and garbage tokens are 401 INVALID_TOKEN', async () => {
    const a = await newTenant(t.url);
    const [h, p, s] = a.accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const otherTenant = Buffer.from(JSON.stringify({ ...claims, tid: claims.tid + 1 })).toString('base64url');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const hs512 = Buffer.from(JSON.stringify({ alg: 'HS512', typ: 'JWT' })).toString('base64url');
    const tokens = [`${h}.${otherTenant}.${s}`, `${none}.${p}.`, `${none}.${p}.${s}`, `${hs512}.${p}.${s}`, a.refreshToken, 'garbage', `${h}.${p}.${s}x`, 'a.b.c', 'x'.repeat(5000)];
    for (const token of tokens) {
      const res = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 401, token.slice(0, 40));
      assert.equal(res.body.error.code, 'INVALID_TOKEN');
    }
  });

  test('a token whose refresh id or session id is not a UUID is 401 INVALID_TOKEN, never 500', async () => {
    const a = await newTenant(t.url);
    const claims = JSON.parse(Buffer.from(a.refreshToken.split('.')[1] as string, 'base64url').toString());
    const base = { iss: claims.iss, sub: claims.sub, tid: claims.tid };
    const refreshTokens = [
      signJwt({ ...base, sid: claims.sid, typ: 'refresh', jti: 'not-a-uuid' }, jwtKey, 600),
      signJwt({ ...base, sid: 'not-a-uuid', typ: 'refresh', jti: randomUUID() }, jwtKey, 600),
    ];
    for (const refreshToken of refreshTokens) {
      const res = await call(t.url, 'POST', '/TesteCF/customer/refresh', { json: { refreshToken } });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'INVALID_TOKEN');
    }
    const access = signJwt({ ...base, sid: 'not-a-uuid', typ: 'access' }, jwtKey, 600);
    const res = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${access}` } });
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.error.code, 'INVALID_TOKEN');
  });

  test('a session, cached or not, validates only tokens naming its own tenant and user', async () => {
    const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString());
    const get = (token: string) => call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${token}` } });
    /** Tokens naming `victim`'s session with another tenant, another user, or both. */
    const forgeries = (victim: { sub: string; tid: number; sid: string; iss: string }, other: { sub: string; tid: number }) => [
      signJwt({ iss: victim.iss, sub: victim.sub, tid: other.tid, sid: victim.sid, typ: 'access' }, jwtKey, 600),
      signJwt({ iss: victim.iss, sub: other.sub, tid: victim.tid, sid: victim.sid, typ: 'access' }, jwtKey, 600),
      signJwt({ iss: victim.iss, sub: other.sub, tid: other.tid, sid: victim.sid, typ: 'access' }, jwtKey, 600),
    ];
    const a = await newTenant(t.url);
    const b = await newTenant(t.url);
    // Cached as valid by a real use: the cache must not vouch for other tenants or users.
    assert.equal((await get(a.accessToken)).status, 200);
    for (const token of forgeries(claimsOf(a.accessToken), claimsOf(b.accessToken))) {
      const res = await get(token);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'INVALID_TOKEN');
    }
    // Not cached yet: refusing a forgery must not cache the session itself as invalid.
    const c = await newTenant(t.url);
    for (const token of forgeries(claimsOf(c.accessToken), claimsOf(b.accessToken))) assert.equal((await get(token)).status, 401);
    assert.equal((await get(c.accessToken)).status, 200);
    assert.equal((await get(a.accessToken)).status, 200);
  });

  test('logout revokes the session of the token', async () => {
    const a = await newTenant(t.url);
    const auth = { authorization: `Bearer ${a.accessToken}` };
    assert.equal((await call(t.url, 'POST', '/TesteCF/customer/logout', { headers: auth })).status, 200);
    assert.equal((await call(t.url, 'GET', '/api/account', { headers: auth })).status, 401);
    assert.equal((await call(t.url, 'POST', '/TesteCF/customer/refresh', { json: { refreshToken: a.refreshToken } })).status, 401);
  });

  test('a password change revokes every session and answers a fresh one', async () => {
    const a = await newTenant(t.url);
    const other = await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: a.password } });
    const res = await call(t.url, 'POST', '/api/account/password', { json: { currentPassword: a.password, newPassword: 'a brand new password' }, headers: { authorization: `Bearer ${a.accessToken}` } });
    assert.equal(res.status, 200);
    assert.equal((await call(t.url, 'GET', '/api/account', { headers: { authorization: `Bearer ${other.body.data.accessToken}` } })).status, 401);
    assert.equal((await call(t.url, 'POST', '/TesteCF/customer/refresh', { json: { refreshToken: other.body.data.refreshToken } })).status, 401);
    assert.equal((await call(t.url, 'GET', '/api/account', { headers: { authorization: `Bearer ${res.body.data.accessToken}` } })).status, 200);
    assert.equal((await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: a.password } })).status, 401);
    assert.equal((await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: 'a brand new password' } })).status, 200);
    const wrong = await call(t.url, 'POST', '/api/account/password', { json: { currentPassword: 'not it at all', newPassword: 'whatever whatever' }, headers: { authorization: `Bearer ${res.body.data.accessToken}` } });
    assert.equal(wrong.status, 401);
  });
});

describe('API keys', () => {
  test('missing credentials are 401, an unknown or malformed key 403', async () => {
    const missing = await call(t.url, 'GET', '/api/keys');
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error.code, 'UNAUTHORIZED');
    const a = await newTenant(t.url);
    const forged = a.apiKey.slice(0, -4) + 'AAAA';
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    for (const key of [forged, 'ecf_sk_short_x', '', 'ecf_sk_' + 'A'.repeat(16) + '_' + 'B'.repeat(43)]) {
      const res = await api.post('/TesteCF/customer/refresh', { json: { refreshToken: a.refreshToken }, headers: { 'x-api-key': key } });
      assert.equal(res.status, 403, key);
      assert.equal(res.body.error.code, 'INVALID_API_KEY');
    }
  });

  test('a made-up key is remembered as unknown for the cache time, so repeating it costs no query each', async () => {
    const a = await newTenant(t.url);
    const made = generateApiKey();
    assert.equal((await call(t.url, 'GET', '/api/whoami', { headers: { 'x-api-key': made.key } })).status, 403);
    // The row appears after the refusal: this instance still answers from what it remembered.
    await t.sql`insert into api_keys (id, tenant_id, public_id, key_hash, name) values (${randomUUID()}, ${a.tenantId}, ${made.publicId}, ${made.hash}, 'late')`;
    assert.equal((await call(t.url, 'GET', '/api/whoami', { headers: { 'x-api-key': made.key } })).status, 403);
    // Another instance on the same database, which never met the key, finds the row.
    const other = await startTestService({ database: t.database });
    try {
      assert.equal((await call(other.url, 'GET', '/api/whoami', { headers: { 'x-api-key': made.key } })).status, 200);
    } finally {
      await other.close();
    }
  });

  test('a flood of made-up keys does not push the real keys out of the cache', async () => {
    const a = await newTenant(t.url);
    let queries = 0;
    const counting = new Proxy(t.sql, {
      apply(target, self, args) {
        queries++;
        return Reflect.apply(target, self, args);
      },
    });
    const auth = new Authenticator(counting, Buffer.alloc(32), t.config.auth, createLogger('silent'), { keys: 10, unknownKeys: 4 });
    assert.deepEqual(await auth.verifyApiKey(a.apiKey).then((k) => k.tenantId), a.tenantId);
    const afterFirst = queries;
    assert.ok(afterFirst >= 1);
    for (let i = 0; i < 25; i++) await assert.rejects(auth.verifyApiKey(generateApiKey().key), /INVALID_API_KEY|API key/);
    assert.equal(queries - afterFirst, 25, 'one lookup per made-up key');
    const before = queries;
    assert.equal((await auth.verifyApiKey(a.apiKey)).tenantId, a.tenantId);
    assert.equal(queries, before, 'the real key is still answered from memory');
  });

  test('keys are created (shown once), listed without secrets, and revoked', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    const made = await api.post('/api/keys', { json: { name: 'ERP producción' } });
    assert.equal(made.status, 201);
    const key = made.body.data.key as string;
    const list = await api.get('/api/keys');
    assert.equal(list.body.data.length, 2);
    assert.ok(!list.text.includes(key.split('_')[3] as string), 'the secret never appears in a listing');
    assert.equal(list.body.data[0].name, 'ERP producción');

    const useKey = () => call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: a.password }, headers: { 'x-api-key': key } });
    assert.equal((await useKey()).status, 200);
    const revoked = await api.delete(`/api/keys/${made.body.data.id}`);
    assert.equal(revoked.status, 200);
    assert.notEqual(revoked.body.data.revokedAt, null);
    const after = await useKey();
    assert.equal(after.status, 403);
    assert.equal(after.body.error.code, 'INVALID_API_KEY');
  });

  test('creating a key takes a JSON object or nothing: null, an array or a string is 422', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}`, 'content-type': 'application/json' });
    for (const body of ['null', '[]', '"ERP"', '42']) {
      const res = await api.post('/api/keys', { body });
      assert.equal(res.status, 422, body);
      assert.deepEqual(res.body.error.details, [{ path: '$', message: 'must be a JSON object' }]);
    }
    assert.equal((await api.post('/api/keys')).status, 201, 'an empty body names the key by default');
    assert.equal((await api.get('/api/keys')).body.data.length, 2, 'only the last call made a key');
  });

  test('using an API key records last_used_at, written at most once a minute', async () => {
    const a = await newTenant(t.url);
    const lastUsed = async () => ((await t.sql<{ lastUsedAt: Date | null }[]>`select last_used_at from api_keys where tenant_id = ${a.tenantId}`)[0]?.lastUsedAt ?? null);
    assert.equal(await lastUsed(), null, 'registering and signing in do not use the key');
    assert.equal((await call(t.url, 'GET', '/api/whoami', { headers: { 'x-api-key': a.apiKey } })).status, 200);
    // Written in the background, so the request is not held up by it.
    const first = await waitFor(async () => (await lastUsed()) ?? undefined, 5_000, 'last_used_at set');
    assert.ok(first instanceof Date, 'last_used_at is set');
    for (let i = 0; i < 3; i++) assert.equal((await call(t.url, 'GET', '/api/whoami', { headers: { 'x-api-key': a.apiKey } })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(await lastUsed(), first, 'uses within the minute are not written again');
    const listed = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${a.accessToken}` } });
    assert.equal(listed.body.data[0].lastUsedAt, first.toISOString());
  });

  test('whoami names the tenant of an API key or a token, and needs one of them', async () => {
    const a = await newTenant(t.url);
    const byKey = await call(t.url, 'GET', '/api/whoami', { headers: { 'x-api-key': a.apiKey } });
    assert.equal(byKey.status, 200);
    assert.equal(byKey.body.data.tenantId, a.tenantId);
    assert.equal(byKey.body.data.userId, null);
    const byToken = await call(t.url, 'GET', '/api/whoami', { headers: { authorization: `Bearer ${a.accessToken}` } });
    assert.equal(byToken.body.data.tenantId, a.tenantId);
    assert.equal(byToken.body.data.apiKeyId, null);
    assert.equal((await call(t.url, 'GET', '/api/whoami')).status, 401);
  });

  test('where an API key will do, a Basic header beside a valid X-API-KEY is ignored, as Form B clients keep sending it', async () => {
    const a = await newTenant(t.url);
    const formB = { 'x-api-key': a.apiKey, authorization: basic(a.email, a.password) };
    const who = await call(t.url, 'GET', '/api/whoami', { headers: formB });
    assert.equal(who.status, 200);
    assert.equal(who.body.data.tenantId, a.tenantId);
    assert.equal(who.body.data.userId, null, 'Basic credentials are not a sign-in here');
    const basicAlone = await call(t.url, 'GET', '/api/whoami', { headers: { authorization: formB.authorization } });
    assert.equal(basicAlone.status, 401);
    assert.equal(basicAlone.body.error.code, 'UNAUTHORIZED');
    // A bearer-only route, and a Bearer header that is wrong, are still refused.
    assert.equal((await call(t.url, 'GET', '/api/keys', { headers: formB })).status, 401);
    const badBearer = await call(t.url, 'GET', '/api/whoami', { headers: { 'x-api-key': a.apiKey, authorization: 'Bearer not-a-token' } });
    assert.equal(badBearer.status, 401);
    assert.equal(badBearer.body.error.code, 'INVALID_TOKEN');
  });

  test('a tenant cannot revoke another tenant\'s key (404)', async () => {
    const a = await newTenant(t.url);
    const b = await newTenant(t.url);
    const bKeys = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${b.accessToken}` } });
    const res = await call(t.url, 'DELETE', `/api/keys/${bKeys.body.data[0].id}`, { headers: { authorization: `Bearer ${a.accessToken}` } });
    assert.equal(res.status, 404);
    assert.equal((await call(t.url, 'DELETE', '/api/keys/not-a-uuid', { headers: { authorization: `Bearer ${a.accessToken}` } })).status, 404);
  });
});

test('registration can be switched off', async () => {
  const closed = await startTestService({ env: { REGISTRATION_ENABLED: 'false' } });
  try {
    const res = await call(closed.url, 'POST', '/TesteCF/customer/register', { json: { email: 'a@example.com', password: 'long password here', name: 'X', rnc: '101010101' } });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'REGISTRATION_DISABLED');
  } finally {
    await closed.close();
  }
});
