import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type postgres from 'postgres';
import { migrate } from '../src/db/migrate.ts';
import type { Queryable } from '../src/db/connect.ts';
import { createLogger } from '../src/log.ts';
import { DELIVERY_KIND, type JobKind } from '../src/queue/kinds.ts';
import { claimJobs, type SkippedGroup } from '../src/queue/queries.ts';
import { createTestDatabase, oneSession, type TestDatabase } from './helpers/db.ts';

// A claim does not read the due jobs it leaves (docs/architecture.md, "Claims do not read a slow
// receiver's backlog"): the main runtime's claims do not read the webhook deliveries waiting for a
// slow receiver, thousands of them (before, each claim read past all of them: 40–69 ms per claim
// with 100,000 waiting), and a deliveries' claim that leaves that tenant out does not read its
// deliveries (80–150 ms).

const WAITING = 3000;
let t: TestDatabase;
let one: postgres.Sql;
let endOne: () => Promise<void>;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, createLogger('silent'));
  // One connection, whose prepared claim goes on to its generic plan as a running service's does.
  ({ sql: one, end: endOne } = oneSession(t));
});
after(async () => {
  await endOne();
  await t.close();
});
beforeEach(async () => {
  await t.db.sql`delete from jobs`;
});

/** Due jobs of `kind`, `minutesAgo` old, one millisecond apart, of `tenantId`. */
async function due(kind: JobKind, count: number, minutesAgo: number, tenantId = 7): Promise<void> {
  await t.db.sql`
    insert into jobs (kind, payload, run_at)
    select ${kind}, jsonb_build_object('tenantId', ${tenantId}::int, 'n', g), now() - make_interval(mins => ${minutesAgo}) + g * interval '1 ms'
    from generate_series(1, ${count}) g`;
}

/**
 * The jobs a claim of `kinds` takes, and the rows of `jobs` it read. The claim is made six times
 * first, rolled back, so the last runs on the generic plan, as in a running service; the table
 * is not analysed, as on a young database or a server with autovacuum off.
 */
async function claimCounted(kinds: JobKind[], skip: SkippedGroup[] = []): Promise<{ claimed: string[]; tenants: number[]; rowsRead: number }> {
  let result = { claimed: [] as string[], tenants: [] as number[], rowsRead: -1 };
  for (let run = 0; run < 7; run++) {
    await one.begin(async (tx) => {
      const sql = tx as unknown as Queryable;
      // This transaction's counts (not yet sent to the statistics), before and after the claim.
      const read = async () => (await sql<{ read: number }[]>`
        select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int as read from pg_stat_xact_user_tables where relname = 'jobs'`)[0]?.read ?? 0;
      const before = await read();
      const jobs = await claimJobs(sql, kinds, 'worker-a', 20, 30_000, [], skip);
      result = { claimed: jobs.map((j) => j.kind), tenants: jobs.map((j) => Number((j.payload as { tenantId?: number }).tenantId)), rowsRead: (await read()) - before };
      throw new RolledBack();
    }).catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
  }
  return result;
}

class RolledBack extends Error {}

test('a claim of the other kinds does not read the webhook deliveries waiting ahead of its jobs', async () => {
  await due('webhook.deliver', WAITING, 60);
  await due('noop', 5, 1);
  const { claimed, rowsRead } = await claimCounted(['noop', 'document.submit']);
  assert.deepEqual(claimed, ['noop', 'noop', 'noop', 'noop', 'noop']);
  assert.ok(rowsRead >= 5 && rowsRead < 100, `rows read: ${rowsRead}`);
});

test('a claim of deliveries that leaves out a tenant at its limit does not read that tenant\'s waiting deliveries', async () => {
  await due('webhook.deliver', WAITING, 60, 7);
  await due('webhook.deliver', 5, 1, 8);
  const { tenants, rowsRead } = await claimCounted(['webhook.deliver'], [{ kind: 'webhook.deliver', field: 'tenantId', value: '7' }]);
  assert.deepEqual(tenants, [8, 8, 8, 8, 8]);
  assert.ok(rowsRead >= 5 && rowsRead < 100, `rows read: ${rowsRead}`);
});

test('a claim of deliveries that leaves out tenants takes the others\' oldest first, across tenants', async () => {
  await due('webhook.deliver', 50, 30, 7);
  await due('webhook.deliver', 12, 20, 8);
  await due('webhook.deliver', 12, 10, 9);
  await due('webhook.deliver', 12, 15, 10);
  const { tenants } = await claimCounted(['webhook.deliver'], [{ kind: 'webhook.deliver', field: 'tenantId', value: '7' }, { kind: 'webhook.deliver', field: 'tenantId', value: '9' }]);
  assert.deepEqual(tenants.sort((a, b) => a - b), [...Array(12).fill(8), ...Array(8).fill(10)]);
});

test('claims still take their oldest due jobs first, deliveries and the other kinds apart', async () => {
  await due('noop', 30, 10);
  await due('document.submit', 30, 20);
  await due('webhook.deliver', 30, 30);
  const main = await claimCounted(['noop', 'document.submit']);
  assert.deepEqual(main.claimed, Array(20).fill('document.submit'));
  const deliveries = await claimCounted(['webhook.deliver']);
  assert.deepEqual(deliveries.claimed, Array(20).fill('webhook.deliver'));
});

test('the claims\' partial indexes split jobs by the kind claimJobs names as the deliveries\'', async () => {
  const rows = await t.db.sql<{ name: string; definition: string }[]>`
    select indexname as name, indexdef as definition from pg_indexes
    where indexname in ('jobs_due_others_idx', 'jobs_due_deliveries_by_tenant_idx') order by indexname`;
  const kind = DELIVERY_KIND.replace('.', '\\.');
  assert.deepEqual(rows.map((r) => r.name), ['jobs_due_deliveries_by_tenant_idx', 'jobs_due_others_idx']);
  assert.match(rows[0]?.definition ?? '', new RegExp(`WHERE \\(kind = '${kind}'::text\\)`));
  assert.match(rows[1]?.definition ?? '', new RegExp(`WHERE \\(kind <> '${kind}'::text\\)`));
});
