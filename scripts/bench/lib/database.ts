import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { loadConfig } from '../../../src/config.ts';
import { openDatabase, type Database } from '../../../src/db/connect.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { createLogger } from '../../../src/log.ts';

// Each benchmark run works in databases of its own on the PostgreSQL server, created
// here and dropped at the end, so runs never see each other's rows.

export const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface ThrowawayDatabase {
  name: string;
  url: string;
  /** A pool on the database, opened on first use (with the service's driver options). */
  open(poolMax?: number): Promise<Database>;
  drop(): Promise<void>;
}

const silent = createLogger('silent');

/** Creates an empty database, migrated to the service's schema when `migrated` is set. */
export async function createDatabase(label: string, migrated = true): Promise<ThrowawayDatabase> {
  const name = `ecf_bench_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const opened: Database[] = [];
  const open = async (poolMax = 10): Promise<Database> => {
    const db = await openDatabase(loadConfig({ DATABASE_URL: url.toString(), DB_POOL_MAX: String(poolMax) }), silent);
    opened.push(db);
    return db;
  };
  if (migrated) {
    const db = await open(1);
    await migrate(db.sql, silent);
    await db.close();
    opened.length = 0;
  }
  return {
    name,
    url: url.toString(),
    open,
    drop: async () => {
      await Promise.all(opened.map((db) => db.close().catch(() => {})));
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** The server's version and durability settings, which bound every write benchmark. */
export async function serverSettings(): Promise<Record<string, string>> {
  const sql = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ name: string; setting: string }[]>`
      select name, setting from pg_settings
      where name in ('server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'shared_buffers', 'max_connections')`;
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  } finally {
    await sql.end();
  }
}
