import assert from 'node:assert/strict';
import type { Sql } from '../../../src/db/connect.ts';
import { canTransition, ESTADOS, isEstado } from '../../../src/ecf/states.ts';
import { waitFor } from '../../helpers/wait.ts';

// What the database says about a tenant's documents and deliveries once the dust settles:
// the fault tests assert on this, read straight from the tables, rather than through the
// API whose availability is what they disturb.

export interface DocumentRecord {
  id: string;
  estado: string;
  dgiiCode: string | null;
  rncEmisor: string;
  encf: string;
  /** The authority's trackId; null for an RFCE or a document never sent. */
  trackId: string | null;
  /** estado of each history row, oldest first. */
  history: string[];
  /** estado carried by each ecf.status_update event of the document. */
  events: string[];
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  status: string;
  attempts: { number: number; ok: boolean }[];
}

export async function documentRecords(sql: Sql, tenantIds: number[]): Promise<DocumentRecord[]> {
  const docs = await sql<{ id: string; estado: string; dgiiCode: string | null; rncEmisor: string; encf: string; trackId: string | null }[]>`
    select id, estado, dgii_code, rnc_emisor, encf, track_id from documents where tenant_id = any(${tenantIds}::int[]) order by seq`;
  const history = await sql<{ documentId: string; estado: string }[]>`
    select h.document_id, h.estado from document_history h join documents d on d.id = h.document_id
    where d.tenant_id = any(${tenantIds}::int[]) order by h.id`;
  const events = await sql<{ documentId: string; estado: string }[]>`
    select body::jsonb ->> 'internalTrackId' as document_id, body::jsonb ->> 'estado' as estado from events
    where tenant_id = any(${tenantIds}::int[]) and kind = 'ecf.status_update' order by created_at`;
  const byId = new Map(docs.map((d) => [d.id, { ...d, history: [] as string[], events: [] as string[] }]));
  for (const h of history) byId.get(h.documentId)?.history.push(h.estado);
  for (const e of events) byId.get(e.documentId)?.events.push(e.estado);
  return [...byId.values()];
}

export async function deliveryRecords(sql: Sql, tenantIds: number[]): Promise<{ events: string[]; deliveries: DeliveryRecord[] }> {
  // Events and their deliveries in one statement (one snapshot): read apart, an event recorded in
  // between (a buyer-leg update, say) showed as a delivery without its event.
  const rows = await sql<{ eventId: string; id: string | null; status: string | null }[]>`
    select e.id as event_id, d.id, d.status from events e left join webhook_deliveries d on d.event_id = e.id
    where e.tenant_id = any(${tenantIds}::int[])`;
  const events = rows.map((r) => ({ id: r.eventId }));
  const deliveries = rows.flatMap((r) => (r.id === null || r.status === null ? [] : [{ id: r.id, eventId: r.eventId, status: r.status }]));
  const attempts = await sql<{ deliveryId: string; number: number; ok: boolean }[]>`
    select a.delivery_id, a.number, a.ok from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
    where d.tenant_id = any(${tenantIds}::int[]) order by a.id`;
  const byId = new Map(deliveries.map((d) => [d.id, { ...d, attempts: [] as DeliveryRecord['attempts'] }]));
  for (const a of attempts) byId.get(a.deliveryId)?.attempts.push({ number: a.number, ok: a.ok });
  return { events: events.map((e) => e.id), deliveries: [...byId.values()] };
}

/** Waits until every document is final and every event has a delivery that is no longer pending. */
export async function waitUntilSettled(sql: Sql, tenantIds: number[], timeoutMs: number): Promise<void> {
  await waitFor(async () => {
    // A buyer leg still to run (its job retried after a failure) records an event when it
    // does: until then the deliveries are not all there.
    const [row] = await sql<{ open: number; buyerLegs: number; undelivered: number }[]>`
      select
        (select count(*)::int from documents where tenant_id = any(${tenantIds}::int[]) and estado in ('recibido', 'en_proceso')) as open,
        (select count(*)::int from jobs j join documents d on d.id::text = j.payload ->> 'documentId'
          where j.kind = 'exchange.deliver' and d.tenant_id = any(${tenantIds}::int[])) as buyer_legs,
        (select count(*)::int from events e left join webhook_deliveries d on d.event_id = e.id
          where e.tenant_id = any(${tenantIds}::int[]) and (d.id is null or d.status = 'pending')) as undelivered`;
    return row !== undefined && row.open === 0 && row.buyerLegs === 0 && row.undelivered === 0;
  }, timeoutMs, 'every document final, its buyer leg run, and every delivery settled').catch(async (err: unknown) => {
    const open = await sql`select estado, count(*)::int from documents where tenant_id = any(${tenantIds}::int[]) group by estado`;
    const jobs = await sql`select kind, attempts, locked_by, run_at, last_error from jobs where kind not like 'maintenance.%' limit 10`;
    throw new Error(`${(err as Error).message}: documents ${JSON.stringify(open)}; jobs ${JSON.stringify(jobs)}`);
  });
}

/** Every document final, its history a legal path from recibido to its estado, one event per history row. */
export function assertCompleteHistories(docs: DocumentRecord[]): void {
  for (const d of docs) {
    assert.ok(isEstado(d.estado) && ESTADOS[d.estado].final, `document ${d.id} is final (${d.estado})`);
    assert.equal(d.history[0], 'recibido', `document ${d.id} history starts at recibido: ${d.history.join(' → ')}`);
    assert.equal(d.history.at(-1), d.estado, `document ${d.id} history ends at its estado: ${d.history.join(' → ')}`);
    for (let i = 1; i < d.history.length; i++) {
      const from = d.history[i - 1] as string;
      const to = d.history[i] as string;
      assert.ok(isEstado(from) && isEstado(to) && canTransition(from, to), `document ${d.id}: ${from} → ${to} is a legal step`);
    }
    assert.deepEqual([...d.events].sort(), [...d.history].sort(), `document ${d.id}: one ecf.status_update event per history row`);
  }
}

/** Each event has exactly one delivery, and it is delivered; returns the deliveries by id. */
export function assertEveryEventDelivered(ledger: { events: string[]; deliveries: DeliveryRecord[] }): Map<string, DeliveryRecord> {
  const byEvent = new Map<string, DeliveryRecord[]>();
  for (const d of ledger.deliveries) byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), d]);
  for (const eventId of ledger.events) {
    const ds = byEvent.get(eventId) ?? [];
    assert.equal(ds.length, 1, `event ${eventId} has exactly one delivery (has ${ds.length})`);
    assert.equal(ds[0]?.status, 'delivered', `the delivery of event ${eventId} is delivered`);
  }
  assert.equal(ledger.deliveries.length, ledger.events.length, 'no delivery without its event');
  return new Map(ledger.deliveries.map((d) => [d.id, d]));
}

/**
 * Every document accepted. A document whose upload reached the authority while its answer (the
 * trackId) was lost with the process or the connection is found again by its eNCF (Consulta
 * TrackIds) rather than sent twice, so it is accepted like the others.
 */
export function assertAllAccepted(docs: DocumentRecord[]): void {
  for (const d of docs) assert.equal(d.estado, 'aceptado', `document ${d.id} is aceptado (${d.estado} ${d.dgiiCode ?? ''})`);
}
