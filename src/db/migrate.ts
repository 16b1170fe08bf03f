import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.ts';
import type { Sql } from './connect.ts';
import { appliedMigrations, lockMigrations, recordMigration, ensureMigrationsTable } from './migrate-queries.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  checksum: string;
  text: string;
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const out: Migration[] = [];
  for (const file of files) {
    const m = FILE_NAME.exec(file);
    if (m === null) throw new Error(`migration file name ${file} must look like 0001_name.sql`);
    const text = await readFile(`${dir}/${file}`, 'utf8');
    out.push({
      version: Number(m[1]),
      name: m[2] ?? file,
      checksum: createHash('sha256').update(text).digest('hex'),
      text,
    });
  }
  // Numbers only grow and never repeat. Gaps are allowed: parallel branches each take their own
  // numbers, and one may use fewer than it was given.
  out.forEach((mig, i) => {
    const before = i === 0 ? 0 : (out[i - 1] as Migration).version;
    if (mig.version <= before) throw new Error(`migration numbers must grow and never repeat; found ${mig.version} after ${before}`);
  });
  return out;
}

/**
 * Applies the pending migrations, each in its own transaction under a transaction-scoped
 * advisory lock, so instances starting together apply each migration exactly once: the
 * second waits for the lock, then sees the first one's record and skips it. An applied
 * migration whose file has changed stops start-up, because forward-only means history
 * is never rewritten.
 */
export async function migrate(sql: Sql, log: Logger, dir = MIGRATIONS_DIR): Promise<number[]> {
  const migrations = await loadMigrations(dir);
  await ensureMigrationsTable(sql);
  const appliedNow: number[] = [];
  for (const mig of migrations) {
    const applied = await sql.begin(async (tx) => {
      await lockMigrations(tx);
      const done = new Map((await appliedMigrations(tx)).map((r) => [r.version, r.checksum]));
      for (const [version, checksum] of done) {
        const file = migrations.find((x) => x.version === version);
        if (file !== undefined && file.checksum !== checksum) {
          throw new Error(`migration ${version} (${file.name}) was changed after it was applied; add a new migration instead`);
        }
      }
      if (done.has(mig.version)) return false;
      await tx.unsafe(mig.text);
      await recordMigration(tx, mig);
      return true;
    });
    if (applied) {
      appliedNow.push(mig.version);
      log.info('migration applied', { version: mig.version, name: mig.name });
    }
  }
  return appliedNow;
}
