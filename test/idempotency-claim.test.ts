import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { migrate } from '../src/db/migrate.ts';
import type { Queryable } from '../src/db/connect.ts';
import { claimKeys } from '../src/idempotency/queries.ts';
import { createLogger } from '../src/log.ts';
import { createTestDatabase, oneSession, type TestDatabase } from './helpers/db.ts';

// The claim of an Idempotency-Key commits without waiting for its WAL flush (see claimKey): the
// setting must hold for that statement's own transaction and nothing after it.

let t: TestDatabase;
let one: postgres.Sql;
let endOne: () => Promise<void>;
let tenantId = 0;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, createLogger('silent'));
  const [tenant] = await t.db.sql<{ id: number }[]>`insert into tenants (name, rnc) values ('Reclamo SRL', '130000018') returning id`;
  tenantId = tenant?.id ?? 0;
  // One connection, so that what the claim leaves behind is what the next statement meets.
  ({ sql: one, end: endOne } = oneSession(t));
});
after(async () => {
  await endOne();
  await t.close();
});

/** One claim: true when its owner now holds the key. */
async function claimKey(sql: Queryable, key: string): Promise<boolean> {
  const owner = randomUUID();
  return (await claimKeys(sql, [{ scope: { tenantId, environment: 'TesteCF', key }, owner, fingerprint: 'fp' }], 60_000, 86_400_000)).has(owner);
}

const setting = async (sql: Queryable): Promise<string | undefined> =>
  (await sql<{ setting: string }[]>`select current_setting('synchronous_commit') as setting`)[0]?.setting;

test('a claim commits asynchronously in its own transaction and leaves the connection synchronous', async () => {
  const sql = one as unknown as Queryable;
  assert.equal(await setting(sql), 'on');
  assert.equal(await claimKey(sql, 'k-1'), true);
  assert.equal(await setting(sql), 'on', 'the next statement on the connection commits synchronously again');
  await t.db.sql.begin(async (tx) => {
    assert.equal(await claimKey(tx, 'k-2'), true);
    assert.equal(await setting(tx), 'off', 'inside a transaction the claim relaxes that transaction alone');
  });
  assert.equal(await claimKey(sql, 'k-1'), false, 'a held key is not claimed again');
});

test('claims of several requests go in one statement, each answered for itself', async () => {
  const scope = (key: string) => ({ tenantId, environment: 'CerteCF', key });
  const held = { scope: scope('held'), owner: randomUUID(), fingerprint: 'fp' };
  const expired = { scope: scope('expired'), owner: randomUUID(), fingerprint: 'fp' };
  assert.equal((await claimKeys(t.db.sql, [held, expired], 60_000, 86_400_000)).size, 2);
  await t.db.sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'expired'`;
  const fresh = { scope: scope('fresh'), owner: randomUUID(), fingerprint: 'fp' };
  const again = { scope: scope('held'), owner: randomUUID(), fingerprint: 'fp' };
  const retaken = { scope: scope('expired'), owner: randomUUID(), fingerprint: 'other' };
  const got = await claimKeys(t.db.sql, [fresh, again, retaken], 60_000, 86_400_000);
  assert.deepEqual([fresh, again, retaken].map((c) => got.has(c.owner)), [true, false, true]);
  const [row] = await t.db.sql<{ owner: string; fingerprint: string }[]>`select owner::text, fingerprint from idempotency_keys where key = 'expired'`;
  assert.deepEqual(row, { owner: retaken.owner, fingerprint: 'other' });
});
