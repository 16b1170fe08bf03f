import type { Queryable, Sql } from '../db/connect.ts';
import type { EventEntry, EventOutbox } from '../events/outbox.ts';
import { receptorUpdatePayload } from './views.ts';
import { FIRST_EVENT_SEQ, insertCreatedDocuments, lockDocument, transitionDocuments, transitionedDocument, type DocumentChange, type DocumentRow, type NewDocument } from './queries.ts';
import { insertJobsFor, type NewJob } from '../queue/queries.ts';
import { canTransition, type Estado } from '../ecf/states.ts';
import { erpPayload } from './erp-reference.ts';

export interface DgiiInfo {
  trackId?: string | null;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  detail?: string | null;
  secuenciaUtilizada?: boolean | null;
  /**
   * The buyer leg settled no_aplica with the change, with this detalle (buyerLegWith): in the same
   * statement, with its ecf.receptor_update numbered after the change's event.
   */
  receptorNoAplica?: string;
}

/**
 * The ecf.status_update payload: the fields of the specification, then `sequence` (added by the
 * outbox) and, for a document with an ERP reference, the `erp` extra key receivers may ignore.
 */
export function statusUpdatePayload(doc: Pick<DocumentRow, 'id' | 'encf' | 'estado' | 'dgiiCode' | 'dgiiMessage' | 'trackId' | 'referencia' | 'metadata'> & { secuenciaUtilizada?: boolean | null }): Record<string, unknown> {
  return {
    internalTrackId: doc.id,
    encf: doc.encf,
    estado: doc.estado,
    dgiiCode: doc.dgiiCode,
    dgiiMessage: doc.dgiiMessage,
    trackId: doc.trackId,
    secuenciaUtilizada: doc.secuenciaUtilizada ?? null,
    timestamp: new Date().toISOString(),
    ...erpPayload({ referencia: doc.referencia, metadata: doc.metadata }),
  };
}

/**
 * Stores new documents as `recibido`, each with its first history entry, its event (and what
 * the outbox's listeners write with it) and its submission job: one statement for all of them
 * (insertCreatedDocuments). Answers their seqs in the order given.
 */
export async function storeCreated(tx: Queryable, outbox: EventOutbox, docs: readonly NewDocument[]): Promise<string[]> {
  const events = outbox.prepare(tx, 'ecf.status_update', docs.map((d) => ({
    tenantId: d.tenantId,
    payload: statusUpdatePayload({
      id: d.id, encf: d.encf, estado: 'recibido', dgiiCode: null, dgiiMessage: null, trackId: null, referencia: d.referencia ?? null, metadata: d.metadata ?? null,
    }),
    sequence: FIRST_EVENT_SEQ,
  })));
  const submitJobs = docs.map((d) => ({ ref: d.id, job: { kind: 'document.submit', payload: { documentId: d.id } } satisfies NewJob }));
  const { seqs, eventOutcomes } = await insertCreatedDocuments(tx, docs, events, (inserted) => insertJobsFor(tx, submitJobs, inserted));
  await events.settle(tx, eventOutcomes);
  return seqs;
}

/** One document's change: the document as read, where it goes, what DGII said, and the jobs made with it. */
export interface Change {
  doc: DocumentRow;
  to: Estado;
  info: DgiiInfo;
  /** Jobs enqueued with the change, in its statement, only if the document moves (e.g. its first poll). */
  jobs?: readonly NewJob[];
}

/** Each change's events: its status update, and the buyer leg's when settled with it. */
function prepareChanges(q: Queryable, outbox: EventOutbox, changes: readonly Change[]) {
  const entries: EventEntry[] = [];
  const documentChanges: DocumentChange[] = changes.map(({ doc: current, to, info }) => {
    const payload = statusUpdatePayload({
      ...current,
      estado: to,
      dgiiCode: info.dgiiCode,
      dgiiMessage: info.dgiiMessage,
      trackId: info.trackId ?? current.trackId,
      secuenciaUtilizada: info.secuenciaUtilizada ?? current.secuenciaUtilizada,
    });
    entries.push({ tenantId: current.tenantId, payload, sequence: current.eventSeq + 1, ref: current.id });
    const receptor = info.receptorNoAplica === undefined ? null : { estado: 'no_aplica' as const, motivo: null, detalle: info.receptorNoAplica, at: new Date() };
    if (receptor !== null) {
      const settled = { ...current, estado: to, receptorEstado: receptor.estado, receptorMotivo: receptor.motivo, receptorDetalle: receptor.detalle, receptorUpdatedAt: receptor.at };
      entries.push({ kind: 'ecf.receptor_update', tenantId: current.tenantId, payload: receptorUpdatePayload(settled), sequence: current.eventSeq + 2, ref: current.id });
    }
    return { doc: current, to, trackId: info.trackId, dgiiCode: info.dgiiCode, dgiiMessage: info.dgiiMessage, secuenciaUtilizada: info.secuenciaUtilizada, detail: info.detail ?? null, receptor };
  });
  return { events: outbox.prepare(q, 'ecf.status_update', entries, transitionedDocument(q)), documentChanges };
}

/**
 * The changes' statement from their documents as read: the moved rows (none unless `whole`) and
 * the ids of the documents that moved; the others were no longer as read.
 */
async function runChanges(q: Queryable, changes: readonly Change[], prepared: ReturnType<typeof prepareChanges>, whole: boolean): Promise<{ rows: DocumentRow[]; moved: Set<string> }> {
  const jobs = changes.flatMap((c) => (c.jobs ?? []).map((job) => ({ ref: c.doc.id, job })));
  const also = jobs.length === 0 ? null : insertJobsFor(q, jobs, transitionedDocument(q));
  const { rows, moved, eventOutcomes } = await transitionDocuments(q, prepared.documentChanges, prepared.events, also, whole);
  if (moved.size > 0) await prepared.events.settle(q, eventOutcomes, moved);
  return { rows, moved };
}

function checkAllowed(changes: readonly Change[]): void {
  for (const { doc, to } of changes) if (!canTransition(doc.estado, to)) throw new Error(`a document cannot go from ${doc.estado} to ${to}`);
}

/**
 * Moves `doc` to `to` with its history row and event, in the caller's transaction: one
 * statement (transitionDocuments). The event is numbered from `doc` as read, so the statement
 * holds only while the document's event_seq is still that; should another change of the document
 * have numbered an event meanwhile (its buyer leg, its e-mail), the document is read again under
 * its row lock, which keeps it so for the second try. Returns undefined when the document was no
 * longer in `doc.estado` (someone else moved it).
 */
export async function transition(tx: Queryable, outbox: EventOutbox, doc: DocumentRow, to: Estado, info: DgiiInfo, jobs?: readonly NewJob[]): Promise<DocumentRow | undefined> {
  checkAllowed([{ doc, to, info }]);
  let current: DocumentRow | undefined = doc;
  for (let attempt = 0; attempt < 2 && current !== undefined && current.estado === doc.estado; attempt++) {
    const change: Change = jobs === undefined ? { doc: current, to, info } : { doc: current, to, info, jobs };
    const { rows } = await runChanges(tx, [change], prepareChanges(tx, outbox, [change]), true);
    if (rows[0] !== undefined) return rows[0];
    current = await lockDocument(tx, doc.id);
  }
  return undefined;
}

/** transition() of a change whose document was no longer as read: read again under its lock, in `tx`. */
async function again(tx: Queryable, outbox: EventOutbox, change: Change): Promise<boolean> {
  const current = await lockDocument(tx, change.doc.id);
  return current !== undefined && current.estado === change.doc.estado && (await transition(tx, outbox, current, change.to, change.info, change.jobs)) !== undefined;
}

/**
 * transition() for changes that are all their callers write (a background job's), several
 * documents in one statement. It runs on its own, without the BEGIN and COMMIT a single statement
 * does not need (it is atomic by itself): two round trips fewer. A transaction is opened still
 * when a listener of the outbox writes after the statement (the buyer's e-mail on a verdict), and
 * for a document that changed meanwhile, read again under its lock. One statement per tenant, so
 * that the outbox's listeners hear of one tenant's events at a time. Answers the ids of the
 * documents that moved; the moved rows are not read back.
 */
export async function transitionsAlone(sql: Sql, outbox: EventOutbox, changes: readonly Change[]): Promise<Set<string>> {
  checkAllowed(changes);
  const byTenant = new Map<number, Change[]>();
  const repeated: Change[] = [];
  const seen = new Set<string>();
  for (const c of changes) {
    // A document changed twice in one batch: the second change follows the first, on its own.
    if (seen.has(c.doc.id)) repeated.push(c);
    else byTenant.set(c.doc.tenantId, [...(byTenant.get(c.doc.tenantId) ?? []), c]);
    seen.add(c.doc.id);
  }
  const moved = new Set<string>();
  await Promise.all([...byTenant.values()].map(async (group) => {
    for (const id of await tenantChanges(sql, outbox, group)) moved.add(id);
  }));
  for (const c of repeated) if ((await tenantChanges(sql, outbox, [c])).size > 0) moved.add(c.doc.id);
  return moved;
}

async function tenantChanges(sql: Sql, outbox: EventOutbox, changes: readonly Change[]): Promise<Set<string>> {
  const prepared = prepareChanges(sql, outbox, changes);
  if (prepared.events.writesAfter) {
    return sql.begin(async (tx) => {
      const { moved } = await runChanges(tx, changes, prepareChanges(tx, outbox, changes), false);
      for (const c of changes) if (!moved.has(c.doc.id) && (await again(tx, outbox, c))) moved.add(c.doc.id);
      return moved;
    });
  }
  const { moved } = await runChanges(sql, changes, prepared, false);
  for (const c of changes) if (!moved.has(c.doc.id) && (await sql.begin((tx) => again(tx, outbox, c)))) moved.add(c.doc.id);
  return moved;
}
