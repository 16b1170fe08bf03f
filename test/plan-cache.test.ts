import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { findDeliveriesToSend, recordAttempts, type AttemptToRecord } from '../src/webhooks/queries.ts';
import { storeSignatures } from '../src/documents/signature-queries.ts';
import { transitionDocuments, transitionedDocument } from '../src/documents/queries.ts';
import { EventOutbox } from '../src/events/outbox.ts';
import { claimJobs, insertJob } from '../src/queue/queries.ts';
import { createTestDatabase, oneSession, type TestDatabase } from './helpers/db.ts';

// The statements a webhook delivery runs on every attempt are planned once per connection
// (docs/architecture.md, "Plans made once"). PostgreSQL plans a prepared statement anew on each
// run while its custom plans look cheaper than the generic one; with the ids passed as a uuid[],
// the planner counted each run's array and did so forever, and planning was most of what these
// statements cost the server. The generic plan must also go through the primary key, or every
// attempt would read the whole table.

let t: TestDatabase;
let one: postgres.Sql;
let endOne: () => Promise<void>;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, createLogger('silent'));
  // One connection, so pg_prepared_statements shows the plans of every run below.
  ({ sql: one, end: endOne } = oneSession(t));
  // Tables of a database in use: the planner's choices follow their size.
  const [tenant] = await one<{ id: number }[]>`insert into tenants (name, rnc) values ('Historial SRL', '101672919') returning id`;
  await one`insert into events (id, tenant_id, kind, body, sequence)
    select gen_random_uuid(), ${tenant?.id ?? 0}, 'ecf.status_update', '{}', 1 from generate_series(1, 20000)`;
  await one`insert into webhook_deliveries (id, tenant_id, event_id, event, status, url)
    select gen_random_uuid(), tenant_id, id, kind, 'delivered', 'https://hooks.example/ecf' from events`;
  // A few thousand documents: few enough that a plan taking a hundred rows for its JSON input
  // would rather read them all than look each up.
  await one`insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, rnc_comprador, fecha_emision, monto_total, ecf, event_seq)
    select gen_random_uuid(), ${tenant?.id ?? 0}, 'TesteCF', 31, 'E31' || lpad(g::text, 10, '0'), 'aceptado', '101672919', '131880681', current_date, 1000, '{}'::jsonb, 3
    from generate_series(1, 3000) g`;
  await one`analyze`;
});
after(async () => {
  await endOne();
  await t.close();
});

function attempt(): AttemptToRecord {
  return {
    d: { id: randomUUID(), series: 1 }, job: null, url: 'https://hooks.example/ecf', at: new Date(),
    r: { ok: true, statusCode: 204, durationMs: 3, error: null, responseBody: '' },
    next: { status: 'delivered', nextAttemptAt: null },
  };
}

/** Generic and custom plans made so far for the prepared statement whose text has `marker`. */
async function plansOf(marker: string): Promise<{ generic: number; custom: number }> {
  const rows = await one<{ genericPlans: number; customPlans: number }[]>`
    select generic_plans::int as "genericPlans", custom_plans::int as "customPlans" from pg_prepared_statements where statement like ${`%${marker}%`}`;
  assert.equal(rows.length, 1, `one prepared statement holds ${marker}`);
  return { generic: rows[0]?.genericPlans ?? 0, custom: rows[0]?.customPlans ?? 0 };
}

test('the statements of a delivery attempt are planned once, then run on their generic plan', async () => {
  for (let run = 0; run < 20; run++) {
    const batch = 1 + (run % 4); // a claim's batch varies in size
    await findDeliveriesToSend(one, Array.from({ length: batch }, () => randomUUID()));
    await recordAttempts(one, Array.from({ length: batch }, attempt));
  }
  // PostgreSQL makes five custom plans before it weighs the generic one.
  for (const marker of ['s.previous_secret_expires_at', 'insert into webhook_attempts']) {
    const plans = await plansOf(marker);
    assert.ok(plans.custom <= 5 && plans.generic >= 15, `${marker}: ${JSON.stringify(plans)}`);
  }
});

test('the generic plan finds deliveries through the primary key, not by reading the table', async () => {
  await findDeliveriesToSend(one, [randomUUID()]); // prepared on this connection
  const lines = await preparedPlan('s.previous_secret_expires_at', () => `'${JSON.stringify([randomUUID()])}'`);
  assert.match(lines, /webhook_deliveries_pkey/, lines);
  assert.doesNotMatch(lines, /Seq Scan on webhook_deliveries/, lines);
});

test('storing signatures finds the documents through the primary key on the generic plan', async () => {
  const signature = { signedXml: '<ECF/>', rfceXml: null, securityCode: 'a1B2c3', timbreUrl: 'https://ecf.dgii.gov.do/x', fechaHoraFirma: '01-01-2026 00:00:00' };
  await storeSignatures(one, [{ id: randomUUID(), signature }]); // prepared on this connection
  const lines = await preparedPlan('update documents d set signed_xml', () => "'[]'");
  assert.match(lines, /documents_pkey/, lines);
  assert.doesNotMatch(lines, /Seq Scan on documents/, lines);
});

test('state changes are planned once, and find their documents through the primary key on the generic plan', async () => {
  const outbox = new EventOutbox();
  const changes = (n: number) => Array.from({ length: n }, () => ({ doc: { id: randomUUID(), estado: 'recibido' as const, eventSeq: 1 }, to: 'en_proceso' as const, trackId: 't', dgiiCode: null, dgiiMessage: null, detail: null }));
  for (let run = 0; run < 20; run++) {
    const batch = changes(1 + (run % 4)); // the changes of a turn vary in number
    const events = outbox.prepare(one, 'ecf.status_update', batch.map((c) => ({ tenantId: 1, payload: {}, sequence: 2, ref: c.doc.id })), transitionedDocument(one));
    const { moved } = await transitionDocuments(one, batch, events, null, false);
    assert.equal(moved.size, 0);
  }
  const plans = await plansOf('from_event_seq integer');
  assert.ok(plans.custom <= 5 && plans.generic >= 15, JSON.stringify(plans));
  const lines = await preparedPlan('from_event_seq integer', () => "'[]'"); // every parameter is a JSON set
  assert.match(lines, /documents_pkey/, lines);
  assert.doesNotMatch(lines, /Seq Scan on documents/, lines);
});

test('no index of jobs but its primary key can find a job by id', async () => {
  // A lookup by id (a completion, a lease's renewal, the deletion of a finished delivery's job)
  // that a plan made on a nearly empty table sent through jobs_due_idx (run_at, id) read that
  // index whole, once per job. With the primary key gone for a moment and sequential scans
  // priced out, the planner shows what else it could use.
  let lines = '';
  // Thrown to roll the transaction back: the table keeps its primary key.
  const rollBack = new Error('roll back');
  await assert.rejects(one.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    await tx`alter table jobs drop constraint jobs_pkey`;
    const plan = await tx<{ 'QUERY PLAN': string }[]>`explain (costs off) delete from jobs where id = any(${['1', '2']}::bigint[])`;
    lines = plan.map((r) => r['QUERY PLAN']).join('\n');
    throw rollBack;
  }), rollBack);
  assert.doesNotMatch(lines, /Index/, lines);
  assert.match(lines, /Seq Scan on jobs/, lines);
});

test('a claim walks the due jobs in order on a table analyzed while empty, not every job of its kinds', async () => {
  // `before` analyzed `jobs` empty, as autovacuum does on an idle service; then a burst. Taking
  // `kind = any(...)` to keep one row in two hundred (its default without statistics), the
  // planner read every job of the kinds and sorted them, per claim (docs/architecture.md).
  await one`insert into jobs (kind, payload) select 'noop', jsonb_build_object('i', i) from generate_series(1, 20000) i`;
  const claimed = await claimJobs(one, ['noop'], 'plan-test', 5, 30_000);
  assert.equal(claimed.length, 5);
  // The runtime's first runs of a statement get custom plans, later ones may get the generic one.
  for (const mode of ['custom', 'generic'] as const) {
    const lines = await preparedPlan('for update skip locked', (type) =>
      type === 'text[]' ? "'{noop}'" : type.endsWith('[]') ? "'{}'" : type === 'text' ? "'plan-test'" : '20', mode);
    // The locking subquery's part of the plan (the update then finds the rows by id).
    const claim = lines.slice(lines.indexOf('CTE next'), lines.indexOf('InitPlan'));
    assert.match(claim, /Index Scan using jobs_due_others_idx on jobs/, `${mode}: ${lines}`);
    assert.doesNotMatch(claim, /Sort|Bitmap|Seq Scan/, `${mode}: ${lines}`);
  }
  await one`delete from jobs`;
});

test('a claim leases its jobs with HOT updates: the pages of jobs keep room for them', async () => {
  for (let i = 0; i < 400; i++) await insertJob(one, { kind: 'noop', payload: { i } });
  // A lease changes no indexed column, so its update is HOT exactly when the new version fits on
  // the row's own page: then no index gets a new entry. The owner is named as a runtime names
  // itself (host:pid:random), since its length is part of what the page must hold.
  const pages = async () => new Map((await one<{ id: string; page: number }[]>`
    select id, (ctid::text::point)[0]::int as page from jobs`).map((r) => [r.id, r.page]));
  const before = await pages();
  let claimed = 0;
  for (let n = -1; n !== 0; claimed += n) n = (await claimJobs(one, ['noop'], 'ecf-prod-01.example.do:4123456:9f3a0c1e', 50, 30_000)).length;
  assert.equal(claimed, 400);
  const after = await pages();
  const moved = [...before].filter(([id, page]) => after.get(id) !== page).length;
  assert.equal(moved, 0, `${moved} of 400 leased rows left their page`);
  await one`delete from jobs`;
});

/**
 * The plan, generic unless `mode` says custom, of the statement prepared on this connection whose
 * text has `marker`, run with `argument(type)` for each of its parameters (SQL literals).
 */
async function preparedPlan(marker: string, argument: (type: string) => string, mode: 'generic' | 'custom' = 'generic'): Promise<string> {
  // The marker is a parameter: written in this statement's text, it would match this statement.
  const [row] = await one<{ name: string; types: string[] }[]>`
    select name, parameter_types::text[] as types from pg_prepared_statements where statement like ${`%${marker}%`}`;
  assert.ok(row !== undefined, `a prepared statement holds ${marker}`);
  await one.unsafe(`set plan_cache_mode = force_${mode}_plan`);
  try {
    // Quoted: the driver's names are random letters and digits, and may start with a digit.
    const plan = await one.unsafe<{ 'QUERY PLAN': string }[]>(`explain (costs off) execute "${row.name}"(${row.types.map(argument).join(', ')})`);
    return plan.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await one`set plan_cache_mode = auto`;
  }
}
