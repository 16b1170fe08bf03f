import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openEmbedded, type Database } from '../src/db/connect.ts';
import { loadMigrations } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { createTestDatabase, SERVER_URL } from './helpers/db.ts';
import { ROOT } from './helpers/process.ts';
import { TEST_MASTER_KEY } from './helpers/service.ts';

const run = promisify(execFile);

test('npm run tenant -- create makes a tenant, user and working API key without HTTP', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'ecf-cli-'));
  // On a server each test file has its own database; embedded, the CLI writes under DATA_DIR.
  const server = SERVER_URL === null ? null : await createTestDatabase();
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ECF_MASTER_KEY: TEST_MASTER_KEY, SCRYPT_LOG_N: '12', LOG_LEVEL: 'error', ...(server === null ? {} : { DATABASE_URL: server.url }) };
  const args = ['bin/ecf-service.js', 'tenant', 'create', '--name', 'Operadora SRL', '--rnc', '40212345678', '--email', 'Ops@Example.com'];
  let db: Database | null = null;
  try {
    const { stdout } = await run(process.execPath, args, { cwd: ROOT, env });
    const out = JSON.parse(stdout);
    assert.equal(out.tenant.rnc, '40212345678');
    assert.equal(out.user.email, 'ops@example.com');
    assert.ok(out.password.length >= 16, 'a generated password is printed once');
    db = server?.db ?? (await openEmbedded(join(dataDir, 'pgdata'), createLogger('silent')));
    const [row] = await db.sql`select key_hash from api_keys where tenant_id = ${out.tenant.id}`;
    assert.deepEqual(row?.keyHash, createHash('sha256').update(out.apiKey.key).digest());

    await assert.rejects(run(process.execPath, [...args.slice(0, 7), '--rnc', '123'], { cwd: ROOT, env }), /--rnc must be 9 or 11 digits/);
    await assert.rejects(run(process.execPath, [...args.slice(0, 7), '--rnc', '40212345670'], { cwd: ROOT, env }), /--rnc must be a valid RNC or cédula: .*check digit \(Luhn\) must be 8/);
    await assert.rejects(run(process.execPath, [...args.slice(0, 7), '--rnc', '131880682'], { cwd: ROOT, env }), /check digit \(modulus 11\) must be 1/);
    await assert.rejects(run(process.execPath, [...args.slice(0, 6), '--rnc', '123456786'], { cwd: ROOT, env }), (err: Error) => /ambiguous/.test(err.message) && !/at parseArgs/.test(err.message));
  } finally {
    if (server === null) await db?.close();
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('the operator commands report a bad configuration variable like the service does: the message, no stack, exit 2', async () => {
  const env = { PATH: process.env.PATH ?? '', PORT: 'eighty', ECF_MASTER_KEY: TEST_MASTER_KEY };
  const commands = [['bin/ecf-service.js', 'migrate'], ['bin/ecf-service.js', 'tenant', 'create', '--name', 'X SRL', '--rnc', '131880681', '--email', 'x@example.com'], ['bin/ecf-service.js']];
  for (const command of commands) {
    const failure = await run(process.execPath, [...command], { cwd: ROOT, env }).then(() => null, (err: { code: number; stderr: string }) => err);
    assert.ok(failure !== null, `${command[0]} must fail`);
    assert.equal(failure.code, 2, command.join(' '));
    assert.match(failure.stderr, /Invalid configuration:\n {2}- PORT must be an integer from 0 to 65535 \(got "eighty"\)/);
    assert.doesNotMatch(failure.stderr, /\n\s+at /, `${command[0]} prints no stack trace`);
  }
});

test('npm run migrate applies every migration to a fresh database, and a second run says it is up to date', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'ecf-cli-'));
  const server = SERVER_URL === null ? null : await createTestDatabase();
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ECF_MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'info', ...(server === null ? {} : { DATABASE_URL: server.url }) };
  const migrateOnce = async () => {
    const { stdout } = await run(process.execPath, ['bin/ecf-service.js', 'migrate'], { cwd: ROOT, env });
    return stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)).filter((l) => /^(migrations applied|database is up to date)$/.test(l.msg));
  };
  try {
    const all = (await loadMigrations()).map((m) => m.version);
    assert.deepEqual((await migrateOnce()).map((l) => [l.msg, l.applied]), [['migrations applied', all]]);
    assert.deepEqual((await migrateOnce()).map((l) => [l.msg, l.applied]), [['database is up to date', []]]);
  } finally {
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
