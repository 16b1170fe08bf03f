import type { Sql } from '../../src/db/connect.ts';
import { watchStatements } from './statements.ts';

/**
 * A pool that counts the queue's claim statements made through it (`claimJobs`, whose update
 * counts an attempt: `attempts = j.attempts + 1`), and the most jobs one of them claimed: a
 * runtime built on it shows how often it claims.
 */
export function countingClaims(sql: Sql): { sql: Sql; claims: () => number; largest: () => number } {
  const { sql: watched, seen } = watchStatements(sql, 'attempts = j.attempts + 1');
  return { sql: watched, claims: () => seen.statements, largest: () => seen.rows.reduce((a, b) => Math.max(a, b), 0) };
}
