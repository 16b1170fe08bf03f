import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { masterKeyCheckValue } from '../src/crypto/master-key.ts';
import { MasterKeyMismatchError } from '../src/db/key-check.ts';
import { createTestDatabase, SERVER_URL } from './helpers/db.ts';
import { ROOT, spawnService } from './helpers/process.ts';
import { startTestService, testEnv, TEST_MASTER_KEY } from './helpers/service.ts';

const OTHER_KEY = 'b2'.repeat(32);

test('the first start stores a check value of the master key (not the key), and a start with another key stops with a clear error', async () => {
  const database = await createTestDatabase();
  try {
    const first = await startTestService({ database });
    await first.close();
    const rows = await database.db.sql<{ checkValue: Buffer }[]>`select check_value from master_key_check`;
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]?.checkValue, masterKeyCheckValue(Buffer.from(TEST_MASTER_KEY, 'hex')));
    assert.ok(!rows[0]?.checkValue.includes(Buffer.from(TEST_MASTER_KEY, 'hex')), 'the key itself is not stored');

    await assert.rejects(startTestService({ database, env: { ECF_MASTER_KEY: OTHER_KEY } }), (err: unknown) => {
      assert.ok(err instanceof MasterKeyMismatchError);
      assert.match(err.message, /^ECF_MASTER_KEY is not the master key of this database \(its check value, stored at the first start on \d{4}-\d{2}-\d{2}, does not match\)/);
      return true;
    });
    // The right key still starts, and the stored value is unchanged by the refused start.
    const again = await startTestService({ database });
    await again.close();
    const after = await database.db.sql<{ checkValue: Buffer }[]>`select check_value from master_key_check`;
    assert.deepEqual(after, rows);
  } finally {
    await database.close();
  }
});

test('the service process and npm run tenant refuse a wrong master key with the message alone (no stack) and exit 1', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'ecf-key-check-'));
  // One database across the starts: the server's, or an embedded one on disk under dataDir.
  const server = SERVER_URL === null ? null : await createTestDatabase();
  const env = testEnv(dataDir, server === null ? {} : { DATABASE_URL: server.url });
  try {
    const first = await spawnService(env);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);

    const refused = await spawnService({ ...env, ECF_MASTER_KEY: OTHER_KEY }).then(() => null, (err: Error) => err.message);
    assert.ok(refused !== null, 'the start with another key must fail');
    assert.match(refused, /^service exited with 1:/);
    assert.match(refused, /failed to start: ECF_MASTER_KEY is not the master key of this database/);
    assert.doesNotMatch(refused, /\n\s+at /);

    const tenant = await promisify(execFile)(process.execPath, ['bin/ecf-service.js', 'tenant', 'create', '--name', 'Otra SRL', '--rnc', '131880681', '--email', 'o@example.com'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env, ECF_MASTER_KEY: OTHER_KEY, LOG_LEVEL: 'error' },
    }).then(() => null, (err: { code: number; stderr: string; stdout: string }) => err);
    assert.ok(tenant !== null, 'the tenant command with another key must fail');
    assert.equal(tenant.code, 1);
    assert.equal(tenant.stdout, '', 'no credentials printed');
    assert.match(tenant.stderr, /^tenant creation failed: ECF_MASTER_KEY is not the master key of this database/);
  } finally {
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
