import postgres from 'postgres';
import type { Sql } from '../../src/db/connect.ts';
import { PgliteSession } from '../../src/db/pglite-session.ts';
import { PgliteWire } from '../../src/db/pglite-wire.ts';
import type { OpenLane } from '../../src/db/transaction.ts';
import { embeddedSeed, SERVER_URL } from './db.ts';

/** A statement that opens, ends or nests a transaction. */
export function isTransactionStatement(text: string): boolean {
  return /^\s*(begin|start\s+transaction|commit|end|rollback|abort|savepoint|release|prepare\s+transaction)\b/i.test(text);
}

/**
 * Connections of the database left inside a transaction. On the server, sessions idle in a
 * transaction; on the embedded database (one backend), 1 when that backend is in one: then
 * this statement does not start its transaction, and now() is older than it.
 */
export async function openTransactions(sql: Sql): Promise<number> {
  if (SERVER_URL === null) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    // A simple query: one message, so a transaction it starts starts when it does.
    const [row] = await sql.unsafe<{ inside: number }[]>('select (now() <> statement_timestamp())::int as inside');
    return row?.inside ?? 0;
  }
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and state in ('idle in transaction', 'idle in transaction (aborted)')`;
  return row?.n ?? 0;
}

export interface LaneDriver {
  open: OpenLane;
  /** A connection of its own to the same database, to look at it from outside. */
  observer: Sql;
  close(): Promise<void>;
}

/** Lane drivers over an embedded database of their own, as src/db/connect.ts makes them. */
export async function embeddedLaneDriver(): Promise<LaneDriver> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create('memory://', { loadDataDir: await embeddedSeed() });
  const session = new PgliteSession();
  const options = (max: number): postgres.Options<{}> & { socket: () => PgliteWire } => ({
    max, socket: () => new PgliteWire(db, session), username: 'postgres', database: 'postgres', idle_timeout: 0, fetch_types: false, onnotice: () => {},
  });
  const observer = postgres(options(1));
  return {
    open: (onnotice) => postgres({ ...options(2), onnotice }),
    observer,
    close: async () => {
      await observer.end({ timeout: 1 });
      await db.close();
    },
  };
}
