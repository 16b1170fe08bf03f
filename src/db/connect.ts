import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { PGlite as PGliteType } from '@electric-sql/pglite';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { PgliteWire } from './pglite-wire.ts';
import { safeBegin } from './transaction.ts';

/** The connection pool: can open transactions. */
export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;
/** Anything a single query can run on: the pool or an open transaction. */
export type Queryable = postgres.ISql;

export interface Database {
  sql: Sql;
  kind: 'postgres' | 'embedded';
  close(): Promise<void>;
}

// Rows come back with camelCase keys and tagged-template helpers (sql(object)) write
// snake_case columns, so query modules never map names by hand.
const DRIVER_OPTIONS = {
  transform: postgres.camel,
  onnotice: () => {},
  connection: { application_name: 'ecf-service' },
} as const;

export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  if (config.databaseUrl !== null && config.databaseUrl !== 'memory://') {
    const sql = postgres(config.databaseUrl, {
      ...DRIVER_OPTIONS,
      max: config.dbPoolMax,
      idle_timeout: 60,
      // A connection that neither opens nor fails (a network path that drops packets) holds
      // the queries waiting for it this long before they fail with 503: short enough to
      // answer inside an ERP client's usual 10 s timeout.
      connect_timeout: 5,
      max_lifetime: 60 * 30,
      // Seconds before a connection that failed is tried again. The driver's default grows to
      // 20 s while the server is away; every query waiting on that connection waits as long,
      // so an outage would hang requests instead of answering 503, and delay recovery.
      backoff: (failures: number) => Math.min(2 ** failures / 100, 1),
    });
    sql.begin = safeBegin(sql);
    try {
      // The driver fetches the array types on every new connection, in a query nothing
      // awaits: when that connection is lost and reconnecting fails, the rejection goes
      // unhandled and ends the process. The types are the pool's, so fetch them once, now.
      // Then sql.reserve() must not be used: without the fetch, 3.4.9 never hands a newly
      // opened connection to a waiting reserve (test/numbering.test.ts would hang).
      await sql`select 1`;
      sql.options.fetch_types = false;
    } catch (err) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw err;
    }
    return { sql, kind: 'postgres', close: () => sql.end({ timeout: 5 }) };
  }
  return openEmbedded(config.databaseUrl === 'memory://' ? null : join(config.dataDir, 'pgdata'), log);
}

/**
 * PGlite in this process, reached through the same driver so that all SQL code is shared.
 * `seed` is a data directory from PGlite's dumpDataDir to start an in-memory database from
 * instead of running initdb (several seconds): test suites open hundreds of them.
 */
export async function openEmbedded(directory: string | null, log: Logger, seed?: Blob): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  let lock: DataDirLock | null = null;
  if (directory !== null) {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    lock = await lockDataDir(`${directory}.lock`);
  }
  const started = Date.now();
  let db: PGliteType;
  try {
    db = await PGlite.create(directory ?? 'memory://', seed === undefined ? undefined : { loadDataDir: seed });
  } catch (err) {
    await lock?.release();
    throw err;
  }
  log.info('embedded database ready', { directory: directory ?? 'memory', ms: Date.now() - started });
  // `socket` is a documented driver option missing from its type definitions.
  const options: postgres.Options<{}> & { socket: () => PgliteWire } = {
    ...DRIVER_OPTIONS,
    max: 1,
    socket: () => new PgliteWire(db),
    username: 'postgres',
    database: 'postgres',
    idle_timeout: 0,
  };
  const sql = postgres(options);
  sql.begin = safeBegin(sql);
  return {
    sql,
    kind: 'embedded',
    close: async () => {
      await sql.end({ timeout: 5 });
      await db.close();
      await lock?.release();
    },
  };
}
