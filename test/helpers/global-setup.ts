import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, openEmbedded } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log.ts';
import { embeddedSeed, MIGRATED_TEMPLATE_ENV, SERVER_URL } from './db.ts';
import { ROOT } from './process.ts';

// The suite's global setup (node --test-global-setup, in package.json's test scripts): one
// migrated database made before the first test file, which every test service's database is
// copied from instead of being migrated on its own (startTestService). Migrating took 0.5 s of
// the server's time per database and 1.4 s of CPU per embedded one, a hundred times a run; the
// tests of migrating itself still start from an empty database (createTestDatabase()).
// The test files' processes inherit the variable set here; the teardown removes the copy.

const silent = createLogger('silent');
let made: { server: string } | { file: string } | null = null;

export async function globalSetup(): Promise<void> {
  // V8's compiled code of the service's modules, kept on disk for the next process: each test
  // file's process, and each service a test starts, imports most of src/ (1 s of CPU, 0.5 with
  // the cache, several hundred times a run). Node checks each entry against its source.
  process.env.NODE_COMPILE_CACHE ??= join(ROOT, 'node_modules', '.cache', 'node-compile');
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (SERVER_URL === null) {
    // Migrated on disk through the service's own driver, then read back whole as a seed.
    const dir = await mkdtemp(join(tmpdir(), 'ecf-test-migrated-'));
    try {
      const db = await openEmbedded(join(dir, 'pgdata'), silent, await embeddedSeed());
      try {
        await migrate(db.sql, silent);
      } finally {
        await db.close();
      }
      const { PGlite } = await import('@electric-sql/pglite');
      const pg = await PGlite.create(join(dir, 'pgdata'));
      const file = join(tmpdir(), `ecf-test-migrated-${tag}.tar`);
      await writeFile(file, Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer()));
      await pg.close();
      made = { file };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  } else {
    const name = `ecf_test_template_${tag}`;
    const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`create database ${name}`);
      made = { server: name };
      const url = new URL(SERVER_URL);
      url.pathname = `/${name}`;
      const db = await openDatabase(loadConfig({ DATABASE_URL: url.toString(), DB_POOL_MAX: '1' }), silent);
      try {
        await migrate(db.sql, silent);
      } finally {
        // A database is copied only while nobody is connected to it.
        await db.close();
      }
    } finally {
      await admin.end();
    }
  }
  process.env[MIGRATED_TEMPLATE_ENV] = 'server' in made ? made.server : made.file;
}

export async function globalTeardown(): Promise<void> {
  if (made === null) return;
  if ('file' in made) await rm(made.file, { force: true });
  else if (SERVER_URL !== null) {
    const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`drop database if exists ${made.server} with (force)`);
    } finally {
      await admin.end();
    }
  }
}
