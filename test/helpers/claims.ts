import type { Sql } from '../../src/db/connect.ts';

/**
 * A pool that counts the queue's claim statements made through it (`claimJobs`, whose update
 * counts an attempt: `attempts = j.attempts + 1`), and the most jobs one of them claimed: a
 * runtime built on it shows how often it claims.
 */
export function countingClaims(sql: Sql): { sql: Sql; claims: () => number; largest: () => number } {
  let claims = 0;
  let largest = 0;
  const counted = new Proxy(sql, {
    apply(target, self, args: unknown[]) {
      const strings = args[0];
      const claiming = Array.isArray(strings) && strings.join('').includes('attempts = j.attempts + 1');
      const result = Reflect.apply(target, self, args) as Promise<unknown[]>;
      if (claiming) {
        claims++;
        void Promise.resolve(result).then((rows) => (largest = Math.max(largest, rows.length)), () => {});
      }
      return result;
    },
  });
  return { sql: counted, claims: () => claims, largest: () => largest };
}
