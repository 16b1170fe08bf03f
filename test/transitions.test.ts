import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EventOutbox } from '../src/events/outbox.ts';
import { transition, transitionsAlone } from '../src/documents/transitions.ts';
import type { DocumentRow } from '../src/documents/queries.ts';
import { findDocumentById } from '../src/documents/queries.ts';
import { deliveryCtes } from '../src/webhooks/queries.ts';
import { insertJobsFor } from '../src/queue/queries.ts';
import { call, newTenant } from './helpers/http.ts';
import { ecfFor, FAST_PIPELINE } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';

// A state change is one statement: the document, its history row, its event, the event's
// webhook delivery and what the caller writes with it (the first status query's job). Its event is numbered from the document as read, so a change that numbered
// an event meanwhile is met by reading the document again; a document someone else moved gets
// nothing written.

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, WORKERS_ENABLED: 'false' } });
});
after(() => t.close());

/** An outbox whose events get a webhook delivery, as the service's delivery engine writes them. */
function outboxWithDeliveries(): EventOutbox {
  const outbox = new EventOutbox();
  outbox.onEventInStatement({
    writes: (sql, events) => {
      const deliveries = events.map((e) => ({ id: randomUUID(), tenantId: e.tenantId, eventId: e.id, event: e.kind }));
      const jobs = deliveries.map((d) => ({ ref: d.id, job: { kind: 'webhook.deliver' as const, payload: { deliveryId: d.id, tenantId: d.tenantId } } }));
      const { ctes, outcome } = deliveryCtes(sql, deliveries, (inserted) => insertJobsFor(sql, jobs, inserted));
      return { ctes, outcome, settled: () => {} };
    },
  });
  return outbox;
}

async function written(documentId: string) {
  const [row] = await t.sql<{ history: number; events: number; deliveries: number; sequences: number[] }[]>`
    select (select count(*)::int from document_history where document_id = ${documentId}) as history,
           (select count(*)::int from events where body::jsonb ->> 'internalTrackId' = ${documentId}) as events,
           (select count(*)::int from webhook_deliveries w join events e on e.id = w.event_id where e.body::jsonb ->> 'internalTrackId' = ${documentId}) as deliveries,
           (select array_agg(sequence order by sequence) from events where body::jsonb ->> 'internalTrackId' = ${documentId}) as sequences`;
  return row;
}

test('a transition writes the document, its history, its event and its delivery, numbering the event after a change made meanwhile', async () => {
  const a = await newTenant(t.url);
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: 'https://hooks.example/ecf' }, headers: { authorization: `Bearer ${a.accessToken}` } })).status, 200);
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
  assert.equal(res.status, 202, res.text);
  const id = res.body.data.internalTrackId as string;
  const stale = await findDocumentById(t.sql, id);
  assert.ok(stale !== undefined);
  // Another change of the document numbered an event after it was read (as its e-mail does).
  await t.sql`update documents set event_seq = event_seq + 1 where id = ${id}`;

  const outbox = outboxWithDeliveries();
  // A job written with the change, in its statement, as the first status query is.
  const job = (key: string) => [{ kind: 'noop' as const, uniqueKey: key }];
  const jobs = async (key: string) => (await t.sql<{ n: number }[]>`select count(*)::int as n from jobs where unique_key = ${key}`)[0]?.n;
  const moved = await t.sql.begin((tx) => transition(tx, outbox, stale, 'en_proceso', { trackId: 'track-1', dgiiCode: null, dgiiMessage: null }, job(`also-1:${id}`)));
  assert.equal(moved?.estado, 'en_proceso');
  assert.equal(moved?.trackId, 'track-1');
  assert.equal(moved?.eventSeq, stale.eventSeq + 2);
  const after = await written(id);
  assert.deepEqual(after, { history: 2, events: 2, deliveries: 2, sequences: [stale.eventSeq, stale.eventSeq + 2] });
  const [event] = await t.sql<{ body: string }[]>`select body from events where sequence = ${stale.eventSeq + 2} and body::jsonb ->> 'internalTrackId' = ${id}`;
  const body = JSON.parse(event?.body ?? '{}') as Record<string, unknown>;
  assert.equal(body.estado, 'en_proceso');
  assert.equal(body.trackId, 'track-1');
  assert.equal(body.sequence, stale.eventSeq + 2);
  assert.equal(await jobs(`also-1:${id}`), 1, 'what the caller writes with the change was written');

  // Moved already: the stale row's transition writes nothing at all.
  const again = await t.sql.begin((tx) => transition(tx, outbox, stale, 'en_proceso', { trackId: 'track-2', dgiiCode: null, dgiiMessage: null }, job(`also-2:${id}`)));
  assert.equal(again, undefined);
  assert.equal(await jobs(`also-2:${id}`), 0, 'nor what the caller would have written with it');
  assert.deepEqual(await written(id), after);
  assert.equal((await findDocumentById(t.sql, id))?.trackId, 'track-1');
});

test('a transition alone runs without a transaction, reads a changed document again, and opens one for a listener that writes after it', async () => {
  const a = await newTenant(t.url);
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: 'https://hooks.example/ecf' }, headers: { authorization: `Bearer ${a.accessToken}` } })).status, 200);
  const emit = async () => {
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    assert.equal(res.status, 202, res.text);
    const doc = await findDocumentById(t.sql, res.body.data.internalTrackId as string);
    assert.ok(doc !== undefined);
    return doc;
  };
  const outbox = outboxWithDeliveries();
  const alone = async (o: EventOutbox, doc: DocumentRow, trackId: string, jobs?: { kind: 'noop'; uniqueKey: string }[]) =>
    (await transitionsAlone(t.sql, o, [{ doc, to: 'en_proceso', info: { trackId, dgiiCode: null, dgiiMessage: null }, ...(jobs === undefined ? {} : { jobs }) }])).has(doc.id);
  const stale = await emit();
  await t.sql`update documents set event_seq = event_seq + 1 where id = ${stale.id}`;
  assert.equal(await alone(outbox, stale, 'track-a'), true);
  assert.equal((await findDocumentById(t.sql, stale.id))?.eventSeq, stale.eventSeq + 2, 'numbered after the change made meanwhile');
  assert.deepEqual(await written(stale.id), { history: 2, events: 2, deliveries: 2, sequences: [stale.eventSeq, stale.eventSeq + 2] });
  assert.equal(await alone(outbox, stale, 'track-b'), false, 'moved already');

  // A listener that writes after the statement: the change and its write share a transaction,
  // so when the write fails the change is not kept either.
  let sawTransaction = false;
  outbox.onEvent({
    wants: (event) => event.body.includes('"estado":"en_proceso"'),
    write: async (tx) => {
      const [row] = await tx<{ inTransaction: boolean }[]>`select now() <> statement_timestamp() as in_transaction`;
      sawTransaction = row?.inTransaction === true;
      throw new Error('the listener failed');
    },
  });
  const doc = await emit();
  await assert.rejects(alone(outbox, doc, 'track-c'), /the listener failed/);
  assert.ok(sawTransaction, 'the listener ran inside the change\'s transaction');
  assert.equal((await findDocumentById(t.sql, doc.id))?.estado, 'recibido', 'the change rolled back with the listener\'s failure');

  // In that transaction, what the caller writes with the change (built on the pool, as the
  // pipeline builds it) is written by the change's statement.
  const quiet = outboxWithDeliveries();
  let wrote = 0;
  quiet.onEvent({ wants: () => true, write: async () => void wrote++ });
  const key = `alone-also:${doc.id}`;
  assert.equal(await alone(quiet, doc, 'track-d', [{ kind: 'noop', uniqueKey: key }]), true);
  assert.equal(wrote, 1);
  assert.equal((await t.sql<{ n: number }[]>`select count(*)::int as n from jobs where unique_key = ${key}`)[0]?.n, 1);
  assert.equal((await findDocumentById(t.sql, doc.id))?.trackId, 'track-d');
});

test('transitions alone move several documents with one statement per tenant, and write nothing for a document no longer as read', async () => {
  const emitFor = async (tenant: Awaited<ReturnType<typeof newTenant>>) => {
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers: { 'x-api-key': tenant.apiKey } });
    assert.equal(res.status, 202, res.text);
    const doc = await findDocumentById(t.sql, res.body.data.internalTrackId as string);
    assert.ok(doc !== undefined);
    return doc;
  };
  const a = await newTenant(t.url);
  const b = await newTenant(t.url);
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: 'https://hooks.example/ecf' }, headers: { authorization: `Bearer ${a.accessToken}` } })).status, 200);
  const [a1, a2, a3, a4, b1] = [await emitFor(a), await emitFor(a), await emitFor(a), await emitFor(a), await emitFor(b)] as const;
  await t.sql`update documents set estado = 'error' where id = ${a3.id}`; // moved by someone else
  await t.sql`update documents set event_seq = event_seq + 1 where id = ${a4.id}`; // numbered an event meanwhile
  const info = (trackId: string) => ({ trackId, dgiiCode: null, dgiiMessage: null });
  const job = (doc: DocumentRow) => [{ kind: 'noop' as const, uniqueKey: `batch:${doc.id}` }];
  const moved = await transitionsAlone(t.sql, outboxWithDeliveries(), [
    { doc: a1, to: 'en_proceso', info: info('t-a1'), jobs: job(a1) },
    { doc: a2, to: 'aceptado', info: { ...info('t-a2'), receptorNoAplica: 'El comprador no es receptor electrónico' }, jobs: job(a2) },
    { doc: a3, to: 'en_proceso', info: info('t-a3'), jobs: job(a3) },
    { doc: a4, to: 'en_proceso', info: info('t-a4'), jobs: job(a4) },
    { doc: b1, to: 'en_proceso', info: info('t-b1'), jobs: job(b1) },
    { doc: a1, to: 'en_proceso', info: info('t-a1-again') }, // the same document twice in one batch
  ]);
  assert.deepEqual([...moved].sort(), [a1.id, a2.id, a4.id, b1.id].sort());

  // A statement outside a transaction is a transaction of its own: rows it wrote share its xmin.
  const xmin = async (id: string) => (await t.sql<{ x: string }[]>`select xmin::text as x from document_history where document_id = ${id} and estado <> 'recibido'`).map((r) => r.x);
  const [x1, x2, x4, xb] = [await xmin(a1.id), await xmin(a2.id), await xmin(a4.id), await xmin(b1.id)];
  assert.equal(x1.length, 1, 'the repeated change of a1 wrote nothing');
  assert.deepEqual(x2, x1, "a tenant's documents moved in one statement");
  assert.notDeepEqual(xb, x1, 'another tenant in a statement of its own');
  assert.notDeepEqual(x4, x1, 'the document changed meanwhile moved on its own, read again under its lock');
  assert.deepEqual(await xmin(a3.id), []);

  const jobsFor = async (doc: DocumentRow) => (await t.sql<{ n: number }[]>`select count(*)::int as n from jobs where unique_key = ${`batch:${doc.id}`}`)[0]?.n;
  assert.deepEqual([await jobsFor(a1), await jobsFor(a2), await jobsFor(a3), await jobsFor(a4), await jobsFor(b1)], [1, 1, 0, 1, 1]);
  assert.deepEqual(await written(a1.id), { history: 2, events: 2, deliveries: 2, sequences: [a1.eventSeq, a1.eventSeq + 1] });
  assert.deepEqual(await written(a2.id), { history: 2, events: 3, deliveries: 3, sequences: [a2.eventSeq, a2.eventSeq + 1, a2.eventSeq + 2] });
  assert.deepEqual(await written(a3.id), { history: 1, events: 1, deliveries: 1, sequences: [a3.eventSeq] });
  const after2 = await findDocumentById(t.sql, a2.id);
  assert.equal(after2?.estado, 'aceptado');
  assert.equal(after2?.receptorEstado, 'no_aplica');
  assert.equal(after2?.trackId, 't-a2');
  assert.equal((await findDocumentById(t.sql, a1.id))?.trackId, 't-a1');
  assert.equal((await findDocumentById(t.sql, a3.id))?.trackId, null);
});
