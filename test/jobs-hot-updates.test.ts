import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import type { Queryable } from '../src/db/connect.ts';
import { claimJobs, insertJob, releaseJobs, renewLeases } from '../src/queue/queries.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

// A job's updates that change no indexed column (its lease taken, renewed, given back) find
// room for the row's new version on its own page (sql/0038, the table's fillfactor): PostgreSQL
// writes it beside the old one and adds nothing to the indexes of jobs (a HOT update). Packed
// full, such an update added an entry to each of the six.

let t: TestDatabase;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, createLogger('silent'));
  const [tenant] = await t.db.sql<{ id: number }[]>`insert into tenants (name, rnc) values ('Cola SRL', '101672919') returning id`;
  // Enough jobs to fill pages: the claims take the oldest, on the first page.
  for (let i = 0; i < 200; i++) {
    await insertJob(t.db.sql, { kind: 'webhook.deliver', payload: { deliveryId: randomUUID(), tenantId: tenant?.id ?? 0 }, delayMs: 0, uniqueKey: `delivery:${randomUUID()}` });
  }
});
after(async () => {
  await t.close();
});

/**
 * Rows of jobs the session updated, and how many HOT: its own counts, which hold those of its
 * transactions not yet reported to the server's statistics, so only a difference within one
 * transaction says what a statement did.
 */
async function updatesOfJobs(sql: Queryable): Promise<{ updated: number; hot: number }> {
  const [row] = await sql<{ updated: number; hot: number }[]>`
    select pg_stat_get_xact_tuples_updated('jobs'::regclass)::int as updated,
           pg_stat_get_xact_tuples_hot_updated('jobs'::regclass)::int as hot`;
  return row ?? { updated: 0, hot: 0 };
}

/** Runs `step` in a transaction of its own, answering how many rows of jobs it updated, and how many HOT. */
async function updatesOfJobsIn(step: (sql: Queryable) => Promise<void>): Promise<{ updated: number; hot: number }> {
  return t.db.sql.begin(async (tx) => {
    const before = await updatesOfJobs(tx);
    await step(tx);
    const after = await updatesOfJobs(tx);
    return { updated: after.updated - before.updated, hot: after.hot - before.hot };
  });
}

test('claiming, renewing and releasing jobs writes none of their indexes (HOT updates)', async () => {
  const owner = `host:1234:${randomUUID().slice(0, 8)}`;
  // A claim of the size a runtime makes at its default WEBHOOK_CONCURRENCY (half its 20
  // slots); each step its own transaction, as in the runtime.
  let ids: string[] = [];
  assert.deepEqual(await updatesOfJobsIn(async (q) => {
    ids = (await claimJobs(q, ['webhook.deliver'], owner, 10, 60_000)).map((j) => j.id);
  }), { updated: 10, hot: 10 });
  assert.deepEqual(await updatesOfJobsIn(async (q) => {
    assert.equal((await renewLeases(q, ids, owner, 60_000)).size, 10);
  }), { updated: 10, hot: 10 });
  assert.deepEqual(await updatesOfJobsIn(async (q) => releaseJobs(q, ids, owner)), { updated: 10, hot: 10 });
});
