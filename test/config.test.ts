import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { ConfigError, loadConfig, VARIABLES } from '../src/config.ts';
import { createLogger } from '../src/log.ts';

test('defaults match the specification\'s limits and constants', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.databaseUrl, null);
  assert.equal(c.http.bodyLimitBytes, 1024 * 1024);
  assert.equal(c.auth.accessTokenTtlSec, 3600);
  assert.equal(c.auth.scryptLogN, 17);
  assert.deepEqual(
    [c.rateLimits.defaultPerMinute, c.rateLimits.emitPerMinute, c.rateLimits.sensitivePerMinute, c.rateLimits.publicAuthPerMinute, c.rateLimits.receiverPerMinute],
    [120, 600, 10, 20, 600],
  );
  // Webhooks: retries after 1 min, 5 min, 30 min, 2 h and 12 h; a 10 s timeout; private networks refused.
  assert.deepEqual(c.webhooks.retryDelaysMs, [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
  assert.equal(c.webhooks.timeoutMs, 10_000);
  assert.equal(c.webhooks.allowPrivateNetworks, false);
});

test('every bad value is reported at once', () => {
  try {
    loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', REGISTRATION_ENABLED: 'maybe', ECF_MASTER_KEY: 'abcd' });
    assert.fail('expected ConfigError');
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.problems.length, 5);
    assert.match(err.message, /PORT must be an integer/);
  }
});

test('production refuses to start without ECF_MASTER_KEY', () => {
  assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /ECF_MASTER_KEY is required/);
  assert.equal(loadConfig({ NODE_ENV: 'production', ECF_MASTER_KEY: 'ff'.repeat(32), TAX_AUTHORITY: 'dgii' }).masterKey?.length, 32);
});

test('production refuses to start without an explicit TAX_AUTHORITY, in one line naming both choices; elsewhere the simulator is the default', () => {
  const key = { ECF_MASTER_KEY: 'ff'.repeat(32) };
  for (const unset of [{}, { TAX_AUTHORITY: '  ' }]) {
    try {
      loadConfig({ NODE_ENV: 'production', ...key, ...unset });
      assert.fail('expected ConfigError');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.problems, ['TAX_AUTHORITY must be set when NODE_ENV=production: dgii sends documents to DGII; simulator keeps the built-in simulator on purpose']);
    }
  }
  assert.equal(loadConfig({ NODE_ENV: 'production', ...key, TAX_AUTHORITY: 'simulator' }).authority.kind, 'simulator');
  assert.equal(loadConfig({ NODE_ENV: 'production', ...key, TAX_AUTHORITY: 'dgii' }).authority.kind, 'dgii');
  assert.equal(loadConfig({ NODE_ENV: 'test' }).authority.kind, 'simulator');
  assert.equal(loadConfig({}).authority.kind, 'simulator');
});

test('public registration is closed by default in production only, and either default can be overridden', () => {
  const key = { ECF_MASTER_KEY: 'ff'.repeat(32), TAX_AUTHORITY: 'dgii' };
  assert.equal(loadConfig({}).registrationEnabled, true);
  assert.equal(loadConfig({ NODE_ENV: 'test' }).registrationEnabled, true);
  assert.equal(loadConfig({ NODE_ENV: 'production', ...key }).registrationEnabled, false);
  assert.equal(loadConfig({ NODE_ENV: 'production', REGISTRATION_ENABLED: 'true', ...key }).registrationEnabled, true);
  assert.equal(loadConfig({ REGISTRATION_ENABLED: 'false' }).registrationEnabled, false);
  assert.equal(VARIABLES.find((v) => v.name === 'REGISTRATION_ENABLED')?.default, 'true; false when NODE_ENV=production');
});

test('WEB_CONCURRENCY above 1 is refused without DATABASE_URL, with a clear error, and accepted with one', () => {
  assert.equal(loadConfig({}).webConcurrency, 1);
  for (const env of [{ WEB_CONCURRENCY: '2' }, { WEB_CONCURRENCY: '4', DATABASE_URL: 'memory://' }]) {
    assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && err.problems.some((p) => p.includes('WEB_CONCURRENCY') && p.includes('needs DATABASE_URL') && p.includes('one process')));
  }
  assert.equal(loadConfig({ WEB_CONCURRENCY: '3', DATABASE_URL: 'postgres://db.example/ecf' }).webConcurrency, 3);
  assert.throws(() => loadConfig({ WEB_CONCURRENCY: '0' }), ConfigError);
});

test('docs/configuration.md documents every configuration variable', async () => {
  const page = await readFile(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  const missing = VARIABLES.filter((v) => !page.includes(`\`${v.name}\``)).map((v) => v.name);
  assert.deepEqual(missing, []);
});

test('the logger redacts credential-looking fields wherever they are', () => {
  const lines: string[] = [];
  const log = createLogger('info', (l) => lines.push(l));
  log.info('x', { password: 'p4ss', nested: { apiKey: 'ecf_sk_x', authorization: 'Bearer t', ok: 1 }, list: [{ refreshToken: 'r' }] });
  log.debug('hidden');
  assert.equal(lines.length, 1);
  const text = lines[0] ?? '';
  for (const secret of ['p4ss', 'ecf_sk_x', 'Bearer t', '"r"']) assert.ok(!text.includes(secret), secret);
  assert.equal(JSON.parse(text).nested.ok, 1);
});

test('ECF_MASTER_KEY is decoded strictly: a character outside hex and base64 is reported, not skipped', () => {
  const key = Buffer.alloc(32, 7);
  assert.deepEqual(loadConfig({ ECF_MASTER_KEY: key.toString('base64') }).masterKey, key);
  assert.deepEqual(loadConfig({ ECF_MASTER_KEY: key.toString('base64url') }).masterKey, key);
  assert.deepEqual(loadConfig({ ECF_MASTER_KEY: key.toString('hex') }).masterKey, key);
  // Each of these would decode, leniently, to 32 bytes or more of some other key.
  const base64 = Buffer.alloc(36, 7).toString('base64');
  for (const mangled of [`${base64.slice(0, 10)}*${base64.slice(10)}`, `${base64} `.replace(' ', '!'), `${base64.slice(0, 20)}.${base64.slice(20)}`, `${base64}=`, `ä${base64}`]) {
    assert.throws(() => loadConfig({ ECF_MASTER_KEY: mangled }), (err: unknown) => err instanceof ConfigError && /ECF_MASTER_KEY must be hex .* or base64/.test(err.message), mangled);
  }
});
