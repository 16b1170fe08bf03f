import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openDatabase, openEmbedded, type Database } from '../../src/db/connect.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';

// Each test file gets a database of its own: a fresh database on the PostgreSQL server
// named by TEST_DATABASE_URL (or DATABASE_URL), dropped at the end; or, when neither is
// set, a fresh in-memory embedded PostgreSQL (PGlite).

export const SERVER_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? null;

export interface TestDatabase {
  db: Database;
  /** The URL a service should use to reach this database; memory:// means "use `db`". */
  url: string;
  close(): Promise<void>;
}

const silent = createLogger('silent');

/**
 * A freshly initialised embedded data directory (no migrations applied), made once per
 * PGlite version and machine and shared by every test file: loading it takes about a
 * second, initdb about five. Written under a temporary name and renamed, so concurrent
 * test files never read a half-written one.
 */
export async function embeddedSeed(): Promise<Blob> {
  const { version } = JSON.parse(await readFile(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8')) as { version: string };
  const file = join(tmpdir(), `ecf-test-pglite-${version}-${process.getuid?.() ?? 0}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const { PGlite } = await import('@electric-sql/pglite');
    const fresh = await PGlite.create('memory://');
    const dump = await fresh.dumpDataDir('none');
    await fresh.close();
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
    return dump;
  }
}

/**
 * The migrated database the suite's global setup made (test/helpers/global-setup.ts): a
 * template database on the server, or a data directory file for the embedded database. Unset
 * when a test file runs alone: each database is then migrated by its service, as before.
 */
export const MIGRATED_TEMPLATE_ENV = 'ECF_TEST_MIGRATED_TEMPLATE';

/**
 * A fresh database. `migrated`: with every migration applied already when the suite's global
 * setup made a migrated copy to start from (a service's start then finds nothing to apply),
 * for the tests that are not about migrating.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const template = options.migrated === true ? process.env[MIGRATED_TEMPLATE_ENV] : undefined;
  if (SERVER_URL === null) {
    const seed = template === undefined ? await embeddedSeed() : new Blob([await readFile(template)]);
    const db = await openEmbedded(null, silent, seed);
    return { db, url: 'memory://', close: () => db.close() };
  }
  const name = `ecf_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(template === undefined ? `create database ${name}` : `create database ${name} template ${template}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase(loadConfig({ DATABASE_URL: url.toString(), DB_POOL_MAX: '20' }), silent);
  return {
    db,
    url: url.toString(),
    close: async () => {
      await db.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/**
 * One connection to the test database, for tests about what stays on a session: its prepared
 * statements and their plans, what one statement leaves for the next. The embedded database is
 * one session already, and is given back as it is (`end` then leaves it to `close`).
 */
export function oneSession(t: TestDatabase): { sql: postgres.Sql; end: () => Promise<void> } {
  if (SERVER_URL === null) return { sql: t.db.sql as unknown as postgres.Sql, end: async () => {} };
  const sql = postgres(t.url, { max: 1, onnotice: () => {} });
  return { sql, end: () => sql.end() };
}
