import type postgres from 'postgres';
import { isDatabaseUnavailable } from './errors.ts';

// sql.begin without the driver's crash on a lost connection. postgres 3.4.9 answers an
// error of the transaction's callback with a ROLLBACK on the same connection; when that
// connection has just closed, the write throws from a setImmediate callback that no caller
// can catch, and the process dies (porsager/postgres#1154, #1208). So a connection error
// is not handed back to the driver: the callback's promise is left pending, and begin()
// rejects by itself when the connection's close reaches the pool (the driver races the
// callback against it). Should the connection still be open after all (the error came
// from another connection), the error is handed back after a while and rolled back as
// usual: by then a closed connection would already have rejected begin(), and a timer
// callback runs only after the close's own callbacks, so the rollback never meets a
// closed connection. Transaction callbacks query through their `tx`, so in practice a
// connection error they throw is their connection's.

type Begin = postgres.Sql['begin'];
type Callback = (tx: postgres.TransactionSql) => unknown;

/** How long a connection error waits for begin() to reject before the driver rolls back. */
const OPEN_CONNECTION_GRACE_MS = 5_000;

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
