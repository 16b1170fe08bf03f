import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { PGlite as PGliteType } from '@electric-sql/pglite';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { serverSockets } from './server-socket.ts';
import { PgliteSession } from './pglite-session.ts';
import { PgliteWire } from './pglite-wire.ts';
import { TransactionLanes } from './transaction.ts';

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
// snake_case columns, so query modules never map names by hand. Only column names: the
// driver's postgres.camel would rename the keys inside json and jsonb values too, so an ERP's
// metadata key "pedido_id" would read back as "pedidoId" (and every e-CF read would be copied
// key by key to find out).
const DRIVER_OPTIONS = {
  transform: { column: { from: postgres.toCamel, to: postgres.fromCamel } },
  onnotice: () => {},
  connection: { application_name: 'ecf-service' },
} as const;

/**
 * How DB_POOL_MAX is shared: half the connections (at least one) carry transactions, one
 * transaction each (src/db/transaction.ts), the rest (at least one) single statements.
 */
function connectionShares(max: number): { statements: number; transactions: number } {
  const transactions = Math.max(1, Math.floor(max / 2));
  return { statements: Math.max(1, max - transactions), transactions };
}

interface SharedTypes {
  shared: { typeArrayMap: Record<number, number> };
}

/** Gives `to` the array types `from` fetched, so that `to` need not fetch them (see below). */
function shareArrayTypes(from: postgres.Sql, to: postgres.Sql): void {
  Object.assign(to.options.parsers, from.options.parsers);
  Object.assign(to.options.serializers, from.options.serializers);
  Object.assign((to.options as unknown as SharedTypes).shared.typeArrayMap, (from.options as unknown as SharedTypes).shared.typeArrayMap);
}

function discardLogger(log: Logger): (reason: string) => void {
  return (reason) => log.warn('a transaction connection was in a transaction it did not own; it was closed, and the server rolled that transaction back', { reason });
}

export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  if (config.databaseUrl !== null && config.databaseUrl !== 'memory://') {
    const url = config.databaseUrl;
    const shares = connectionShares(config.dbPoolMax);
    const serverOptions = {
      ...DRIVER_OPTIONS,
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
      // Sockets that put right a connection the driver left unable to open again after a
      // cut (src/db/server-socket.ts). `socket` is a documented driver option missing from
      // its type definitions.
      socket: serverSockets((what) => {
        if (what === 'stale') log.warn('a database connection that could not open again after a lost socket (a defect of the driver) was put right');
      }),
    };
    const sql = postgres(url, { ...serverOptions, max: shares.statements });
    try {
      // The driver fetches the array types on every new connection, in a query nothing
      // awaits: when that connection is lost and reconnecting fails, the rejection goes
      // unhandled and ends the process. The types are the pool's, so fetch them once, now,
      // and give them to each transaction lane. Then sql.reserve() must not be used: without
      // the fetch, 3.4.9 never hands a newly opened connection to a waiting reserve
      // (test/numbering.test.ts would hang).
      await sql`select 1`;
      sql.options.fetch_types = false;
    } catch (err) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw err;
    }
    const lanes = new TransactionLanes(shares.transactions, (onnotice) => {
      const lane = postgres(url, { ...serverOptions, max: 2, fetch_types: false, onnotice });
      shareArrayTypes(sql, lane);
      return lane;
    }, discardLogger(log));
    sql.begin = lanes.begin;
    return {
      sql,
      kind: 'postgres',
      close: async () => {
        await Promise.all([lanes.close(5), sql.end({ timeout: 5 })]);
      },
    };
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
  // `socket` is a documented driver option missing from its type definitions. Each
  // connection gets a wire of its own; the session lets one of them in at a time.
  const session = new PgliteSession();
  const wires = new Set<PgliteWire>();
  let closing = false;
  const socket = (): PgliteWire => {
    if (closing) throw Object.assign(new Error('the embedded database is closing'), { code: 'CONNECTION_ENDED' });
    const wire = new PgliteWire(db, session);
    wires.add(wire);
    wire.once('close', () => wires.delete(wire));
    return wire;
  };
  const options = (max: number, onnotice?: (notice: postgres.Notice) => void): postgres.Options<{}> & { socket: () => PgliteWire } => ({
    ...DRIVER_OPTIONS,
    ...(onnotice === undefined ? {} : { onnotice }),
    max,
    socket,
    username: 'postgres',
    database: 'postgres',
    idle_timeout: 0,
  });
  const sql = postgres(options(1));
  // One lane: the backend runs one transaction at a time whatever the number of lanes.
  const lanes = new TransactionLanes(1, (onnotice) => postgres(options(2, onnotice)), discardLogger(log));
  sql.begin = lanes.begin;
  return {
    sql,
    kind: 'embedded',
    close: async () => {
      closing = true;
      await Promise.all([lanes.close(5), sql.end({ timeout: 5 })]);
      // A pool ended while queries still waited for its connection opens a new one for them
      // once that connection closes (postgres 3.4.9, onclose()), after end() has returned.
      for (const wire of wires) wire.destroy();
      await db.close();
      await lock?.release();
    },
  };
}
