import type { Sql } from './connect.ts';

/** Stores the check value unless one is stored already (several instances may start at once). */
export async function storeKeyCheck(sql: Sql, checkValue: Buffer): Promise<void> {
  await sql`insert into master_key_check (check_value) values (${checkValue}) on conflict (singleton) do nothing`;
}

export async function storedKeyCheck(sql: Sql): Promise<{ checkValue: Buffer; createdAt: Date } | null> {
  const [row] = await sql<{ checkValue: Buffer; createdAt: Date }[]>`select check_value, created_at from master_key_check where singleton`;
  return row ?? null;
}
