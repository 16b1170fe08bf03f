import type { Sql } from '../../src/db/connect.ts';

/** What the statements a watched pool ran with the marker in their text did. */
export interface WatchedStatements {
  /** How many were started. */
  statements: number;
  /** Running now, and the most at once. */
  inFlight: number;
  maxInFlight: number;
  /** The rows each returned, in the order they ended. */
  rows: number[];
}

/**
 * A pool that watches the statements made through it whose text holds `marker`: how many, how
 * many at once, the rows of each. `delayMs` holds each one's answer back that much longer, as a
 * busy database would.
 */
export function watchStatements(sql: Sql, marker: string, delayMs = 0): { sql: Sql; seen: WatchedStatements } {
  const seen: WatchedStatements = { statements: 0, inFlight: 0, maxInFlight: 0, rows: [] };
  const watched = new Proxy(sql, {
    apply(target, self, args: unknown[]) {
      const strings = args[0];
      const result = Reflect.apply(target, self, args) as Promise<unknown[]>;
      if (!(Array.isArray(strings) && strings.join('').includes(marker))) return result;
      seen.statements++;
      seen.maxInFlight = Math.max(seen.maxInFlight, ++seen.inFlight);
      const observed = Promise.resolve(result).then(async (rows) => {
        seen.rows.push(rows.length);
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        return rows;
      }).finally(() => seen.inFlight--);
      // Without a delay the caller gets the driver's own query back, as unwatched.
      if (delayMs > 0) return observed;
      void observed.catch(() => {});
      return result;
    },
  });
  return { sql: watched, seen };
}
