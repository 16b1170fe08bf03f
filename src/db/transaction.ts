import type postgres from 'postgres';
import { isDatabaseUnavailable } from './errors.ts';

// Transactions run on lanes: a lane is a driver instance of its own that carries one
// transaction at a time and nothing else. The pool's own sql.begin must not be used, because
// postgres 3.4.9 can send a transaction's BEGIN on a connection that is not reserved for it
// (porsager/postgres#1189, #823):
//
// - begin() hands its BEGIN to whichever pooled connection is free or merely busy, and
//   reserves that connection in a hook that connection.js execute() runs last in a chain of
//   conditions. When the BEGIN is the max_pipeline-th (100th) query waiting on a busy
//   connection, or the socket reports backpressure, the chain stops before the hook. The
//   server opens a transaction on a connection the pool keeps handing out; the driver
//   reports UNSAFE_TRANSACTION (only when max > 1) and lets the connection go back to the
//   pool, still inside that transaction. Every later statement there, whoever sends it, is
//   answered as done and vanishes when the connection closes.
// - A socket 'drain' event puts a reserved connection back in the pool between two of its
//   transaction's statements (connection.js drain(): `!query && onopen(connection)`), so
//   others' statements run inside that transaction. The embedded database's in-process
//   socket drains after every large write.
//
// A lane never has a query in flight when its BEGIN is sent, since only its own transaction
// uses it, and a 'drain' can only hand its connection to nobody.

export type Begin = postgres.Sql['begin'];
type Callback = (tx: postgres.TransactionSql) => unknown;

/** How long a connection error waits for begin() to reject before the driver rolls back. */
const OPEN_CONNECTION_GRACE_MS = 5_000;

/**
 * sql.begin without the driver's crash on a lost connection. postgres 3.4.9 answers an error
 * of the transaction's callback with a ROLLBACK on the same connection; when that connection
 * has just closed, the write throws from a setImmediate callback that no caller can catch,
 * and the process dies (porsager/postgres#1154, #1208). So a connection error is not handed
 * back to the driver: the callback's promise is left pending, and begin() rejects by itself
 * when the connection's close reaches the pool (the driver races the callback against it).
 * Should the connection still be open after all (the error came from another connection),
 * the error is handed back after a while and rolled back as usual: by then a closed
 * connection would already have rejected begin(), and a timer callback runs only after the
 * close's own callbacks, so the rollback never meets a closed connection. Transaction
 * callbacks query through their `tx`, so in practice a connection error they throw is their
 * connection's.
 */
export function safeBegin(sql: postgres.Sql): Begin {
  const begin: Begin = sql.begin.bind(sql);
  function wrapped(first: string | Callback, second?: Callback): Promise<unknown> {
    const options = typeof first === 'string' ? first : '';
    const fn = typeof first === 'string' ? second : first;
    if (fn === undefined) throw new TypeError('begin needs a callback');
    let settled = false;
    const outcome = begin(options, async (tx) => {
      try {
        return await fn(tx);
      } catch (err) {
        if (!isDatabaseUnavailable(err)) throw err;
        return new Promise((_, reject) => {
          const timer = setTimeout(() => (settled ? undefined : reject(err)), OPEN_CONNECTION_GRACE_MS);
          timer.unref();
        });
      }
    });
    void outcome.then(() => (settled = true), () => (settled = true));
    return outcome;
  }
  return wrapped as Begin;
}

/** Notices that say a connection's transaction state is not the one its driver believes. */
const STRAY_TRANSACTION_NOTICES = new Set([
  '25001', // active_sql_transaction: BEGIN inside a transaction already open
  '25P01', // no_active_sql_transaction: COMMIT or ROLLBACK with none open
]);

function isUnsafeTransaction(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'UNSAFE_TRANSACTION';
}

/**
 * Opens one lane's driver instance. It must pass every notice to `onnotice`, and use no more
 * than two connections: one is all a lane ever uses, but the driver checks that a BEGIN went
 * to a reserved connection (UNSAFE_TRANSACTION) only when its pool may hold more than one.
 */
export type OpenLane = (onnotice: (notice: postgres.Notice) => void) => postgres.Sql;

/** One driver instance that carries one transaction at a time. */
class Lane {
  /** Its connection was seen in a transaction state it should not be in: discard it. */
  suspect = false;
  readonly sql: postgres.Sql;
  readonly begin: Begin;

  constructor(open: OpenLane) {
    this.sql = open((notice) => {
      if (STRAY_TRANSACTION_NOTICES.has(String(notice.code))) this.suspect = true;
    });
    this.begin = safeBegin(this.sql);
  }
}

interface Waiter {
  resolve(lane: Lane): void;
  reject(err: Error): void;
}

function endedError(): Error {
  // The driver's own code for it, so callers see "the database is unavailable" (503, retry).
  return Object.assign(new Error('the database is closing'), { code: 'CONNECTION_ENDED' });
}

/**
 * At most `size` transactions at once, each on a lane of its own; more wait, first come
 * first served. A lane whose connection reported a transaction it does not own (the driver's
 * UNSAFE_TRANSACTION, or the server's notice of a BEGIN inside a transaction or a COMMIT
 * outside one) is ended, which closes its connection and makes the server roll back
 * whatever it holds, and is replaced by a fresh one. A transaction refused with
 * UNSAFE_TRANSACTION never ran its callback, so it is run again, once, on the fresh lane.
 */
export class TransactionLanes {
  private readonly idle: Lane[] = [];
  private readonly waiting: Waiter[] = [];
  private readonly lanes = new Set<Lane>();
  private closed = false;
  /** Lanes ended for a stray transaction since start (for tests and logs). */
  discarded = 0;

  private readonly size: number;
  private readonly open: OpenLane;
  private readonly onDiscard: (reason: string) => void;

  constructor(size: number, open: OpenLane, onDiscard: (reason: string) => void = () => {}) {
    this.size = size;
    this.open = open;
    this.onDiscard = onDiscard;
  }

  /** Drop-in for sql.begin: `begin(fn)` or `begin('isolation level ...', fn)`. */
  readonly begin: Begin = ((first: string | Callback, second?: Callback): Promise<unknown> => {
    const options = typeof first === 'string' ? first : '';
    const fn = typeof first === 'string' ? second : first;
    if (fn === undefined) throw new TypeError('begin needs a callback');
    return this.run(options, fn, true);
  }) as Begin;

  private async run(options: string, fn: Callback, retry: boolean): Promise<unknown> {
    const lane = await this.acquire();
    let started = false;
    let stray = false;
    try {
      return await lane.begin(options, (tx) => {
        started = true;
        return fn(tx);
      });
    } catch (err) {
      stray = isUnsafeTransaction(err);
      // Refused at its BEGIN, the callback never ran: running it on a fresh lane is safe.
      if (!stray || started || !retry) throw err;
    } finally {
      this.release(lane, stray ? 'UNSAFE_TRANSACTION' : lane.suspect ? 'transaction state notice' : null);
    }
    return this.run(options, fn, false);
  }

  private acquire(): Promise<Lane> {
    if (this.closed) return Promise.reject(endedError());
    const lane = this.idle.pop();
    if (lane !== undefined) return Promise.resolve(lane);
    if (this.lanes.size < this.size) return Promise.resolve(this.create());
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private create(): Lane {
    const lane = new Lane(this.open);
    this.lanes.add(lane);
    return lane;
  }

  private release(lane: Lane, discardFor: string | null): void {
    let next = lane;
    if (discardFor !== null) {
      this.discarded++;
      this.lanes.delete(lane);
      // Ends its connection at once: the server rolls back what that connection holds.
      void lane.sql.end({ timeout: 0 }).catch(() => {});
      this.onDiscard(discardFor);
      if (this.closed || this.waiting.length === 0) return;
      next = this.create();
    }
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter.resolve(next);
    else if (!this.closed) this.idle.push(next);
  }

  /** Refuses new transactions, lets running ones finish for up to `timeoutSec`, then ends every lane. */
  async close(timeoutSec: number): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(endedError());
    this.idle.length = 0;
    await Promise.all([...this.lanes].map((lane) => lane.sql.end({ timeout: timeoutSec })));
    this.lanes.clear();
  }
}
