import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/connect.ts';
import { loadMigrations, migrate, MIGRATIONS_DIR } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { createTestDatabase, SERVER_URL, type TestDatabase } from './helpers/db.ts';

const log = createLogger('silent');
let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
});
after(() => t.close());

async function schemaSnapshot(): Promise<string> {
  const cols = await t.db.sql`
    select table_name, column_name, data_type, is_nullable, column_default
    from information_schema.columns where table_schema = 'public' order by table_name, column_name`;
  const idx = await t.db.sql`select indexname, indexdef from pg_indexes where schemaname = 'public' order by indexname`;
  const rows = await t.db.sql`select version, checksum from schema_migrations order by version`;
  return JSON.stringify({ cols, idx, rows });
}

test('migrations apply once; a second run changes nothing', async () => {
  const all = await loadMigrations();
  const first = await migrate(t.db.sql, log);
  assert.deepEqual(first, all.map((m) => m.version));
  const before = await schemaSnapshot();
  const second = await migrate(t.db.sql, log);
  assert.deepEqual(second, []);
  assert.equal(await schemaSnapshot(), before);
});

test('instances migrating at the same time apply each migration exactly once', async () => {
  const results = await Promise.all([migrate(t.db.sql, log), migrate(t.db.sql, log), migrate(t.db.sql, log)]);
  assert.deepEqual(results.flat(), []);
  const [row] = await t.db.sql`select count(*)::int as n from schema_migrations`;
  assert.equal(row?.n, (await loadMigrations()).length);
});

test('instances starting together on a fresh database all succeed, and each migration is recorded once', async () => {
  const fresh = await createTestDatabase();
  const pools: Database[] = [];
  try {
    // On a server each instance has its own pool, all racing from an empty database (no
    // schema_migrations yet); the embedded database is one backend that the calls share.
    if (SERVER_URL !== null) {
      pools.push(...(await Promise.all([1, 2, 3, 4].map(() => openDatabase(loadConfig({ DATABASE_URL: fresh.url, DB_POOL_MAX: '2' }), log)))));
    }
    const instances = SERVER_URL === null ? [fresh.db, fresh.db, fresh.db, fresh.db] : pools;
    const results = await Promise.all(instances.map((db) => migrate(db.sql, log)));
    const all = (await loadMigrations()).map((m) => m.version);
    assert.deepEqual(results.flat().sort((a, b) => a - b), all, 'each migration applied by exactly one instance');
    const rows = await fresh.db.sql<{ version: number; n: number }[]>`select version, count(*)::int as n from schema_migrations group by version order by version`;
    assert.deepEqual(rows.map((r) => [r.version, r.n]), all.map((v) => [v, 1]));
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await fresh.close();
  }
});

test('a new migration is applied in its own transaction, and a failing one leaves no trace', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ecf-mig-'));
  try {
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    const next = Math.max(...(await loadMigrations()).map((m) => m.version)) + 1;
    const name = `${String(next).padStart(4, '0')}_broken.sql`;
    await writeFile(join(dir, name), 'create table half_done (id int);\nselect 1/0;\n');
    await assert.rejects(migrate(t.db.sql, log, dir), /division by zero/);
    const [row] = await t.db.sql`select to_regclass('public.half_done') is not null as exists`;
    assert.equal(row?.exists, false);
    await writeFile(join(dir, name), 'create table half_done (id int);\n');
    assert.deepEqual(await migrate(t.db.sql, log, dir), [next]);
    // Editing an applied migration is refused: history is forward-only.
    await appendFile(join(dir, name), '-- edited\n');
    await assert.rejects(migrate(t.db.sql, log, dir), /was changed after it was applied/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a migration numbered below one already applied, or a number used twice, is refused; a gap between numbers is not', async () => {
  await migrate(t.db.sql, log);
  const dir = await mkdtemp(join(tmpdir(), 'ecf-mig-'));
  try {
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    const all = await loadMigrations();
    const newest = Math.max(...all.map((m) => m.version));
    // Blocks of numbers go to parallel work: a gap below the newest is fine while it stays empty.
    const ahead = `${String(newest + 3).padStart(4, '0')}_ahead.sql`;
    await writeFile(join(dir, ahead), 'create table gap_ahead (id int);\n');
    assert.deepEqual(await migrate(t.db.sql, log, dir), [newest + 3]);
    const behind = `${String(newest + 2).padStart(4, '0')}_behind.sql`;
    await writeFile(join(dir, behind), 'create table gap_behind (id int);\n');
    await assert.rejects(migrate(t.db.sql, log, dir), /numbered below migration \d+, already applied/);
    const [row] = await t.db.sql`select to_regclass('public.gap_behind') is not null as exists`;
    assert.equal(row?.exists, false);
    await rm(join(dir, behind));
    await writeFile(join(dir, `${String(newest + 3).padStart(4, '0')}_twice.sql`), 'select 1;\n');
    await assert.rejects(loadMigrations(dir), /increasing order, each number once/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('stored documents and XML are compressed with LZ4 on a server that has it, and the embedded database keeps pglz', async () => {
  await migrate(t.db.sql, log);
  const columns = await t.db.sql<{ column: string; method: string }[]>`
    select attrelid::regclass::text || '.' || attname as column, attcompression::text as method
    from pg_attribute
    where (attrelid, attname) in (('documents'::regclass, 'ecf'), ('documents'::regclass, 'signed_xml'), ('documents'::regclass, 'rfce_xml'),
      ('documents'::regclass, 'arecf_xml'), ('received_documents'::regclass, 'ecf'), ('received_documents'::regclass, 'xml'),
      ('received_documents'::regclass, 'arecf_xml'), ('sent_approvals'::regclass, 'xml'), ('annulments'::regclass, 'signed_xml'))
    order by 1`;
  assert.equal(columns.length, 9);
  // Debian's PostgreSQL (the test server) is built with LZ4; PGlite is not, and refuses the method.
  const expected = SERVER_URL !== null ? 'l' : '';
  assert.deepEqual(columns.filter((c) => c.method !== expected), [], `every column's method is ${JSON.stringify(expected)}`);
  // What a stored e-CF gets: LZ4 on the server, while other columns keep the server's default.
  const big = JSON.stringify({ Item: Array.from({ length: 200 }, (_, i) => ({ NombreItem: `Servicio ${i}`, MontoItem: `${i}.00` })) });
  const [tenant] = await t.db.sql<{ id: number }[]>`insert into tenants (name, rnc) values ('lz4', '131880681') returning id`;
  await t.db.sql`insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)
    values (gen_random_uuid(), ${tenant?.id ?? 0}, 'TesteCF', 31, 'E310000000001', 'recibido', '131880681', current_date, 1, ${big}::jsonb)`;
  await t.db.sql`create temporary table other_column (v jsonb)`;
  await t.db.sql`insert into other_column values (${big}::jsonb)`;
  const [stored] = await t.db.sql<{ ecf: string; other: string }[]>`
    select (select pg_column_compression(ecf) from documents where encf = 'E310000000001') as ecf, (select pg_column_compression(v) from other_column) as other`;
  assert.deepEqual(stored, { ecf: SERVER_URL !== null ? 'lz4' : 'pglz', other: 'pglz' });
});
