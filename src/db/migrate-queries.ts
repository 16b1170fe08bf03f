import type { Queryable, Sql } from './connect.ts';

// Arbitrary constant shared by every instance: the advisory lock that serialises migrations.
const MIGRATION_LOCK_ID = 7_215_310_041;

export async function ensureMigrationsTable(sql: Sql): Promise<void> {
  // Two instances may race here on a fresh database; the advisory lock makes the
  // CREATE TABLE IF NOT EXISTS safe against the duplicate-type race PostgreSQL has.
  await sql.begin(async (tx) => {
    await lockMigrations(tx);
    await tx`
      create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`;
  });
}

export async function lockMigrations(tx: Queryable): Promise<void> {
  await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`;
}

export async function appliedMigrations(tx: Queryable): Promise<{ version: number; checksum: string }[]> {
  return tx<{ version: number; checksum: string }[]>`select version, checksum from schema_migrations order by version`;
}

export async function recordMigration(tx: Queryable, m: { version: number; name: string; checksum: string }): Promise<void> {
  await tx`insert into schema_migrations (version, name, checksum) values (${m.version}, ${m.name}, ${m.checksum})`;
}
