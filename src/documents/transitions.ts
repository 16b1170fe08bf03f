import type { Queryable, Sql } from '../db/connect.ts';
import type { EventEntry, EventOutbox, Fragment } from '../events/outbox.ts';
import { receptorUpdatePayload } from './views.ts';
import { FIRST_EVENT_SEQ, insertCreatedDocuments, lockDocument, transitionDocument, transitionedDocument, type DocumentRow, type NewDocument } from './queries.ts';
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

/** Written with a change, in its statement: given the moved row's id (a select), e.g. insertJobsFor. */
type Also = (moved: Fragment) => Fragment;

/** The events of the change from `current`: its status update, and the buyer leg's when settled with it. */
function prepareChange(q: Queryable, outbox: EventOutbox, current: DocumentRow, to: Estado, info: DgiiInfo) {
  const payload = statusUpdatePayload({
    ...current,
    estado: to,
    dgiiCode: info.dgiiCode,
    dgiiMessage: info.dgiiMessage,
    trackId: info.trackId ?? current.trackId,
    secuenciaUtilizada: info.secuenciaUtilizada ?? current.secuenciaUtilizada,
  });
  const entries: EventEntry[] = [{ tenantId: current.tenantId, payload, sequence: current.eventSeq + 1 }];
  const receptor = info.receptorNoAplica === undefined ? null : { estado: 'no_aplica' as const, motivo: null, detalle: info.receptorNoAplica, at: new Date() };
  if (receptor !== null) {
    const settled = { ...current, estado: to, receptorEstado: receptor.estado, receptorMotivo: receptor.motivo, receptorDetalle: receptor.detalle, receptorUpdatedAt: receptor.at };
    entries.push({ kind: 'ecf.receptor_update', tenantId: current.tenantId, payload: receptorUpdatePayload(settled), sequence: current.eventSeq + 2 });
  }
  return { events: outbox.prepare(q, 'ecf.status_update', entries, transitionedDocument(q)), receptor };
}

/**
 * The change's statement from `current` as read: the moved row (null unless `whole`), or undefined
 * when the document is no longer as read.
 */
async function runChange(
  q: Queryable, current: DocumentRow, to: Estado, info: DgiiInfo, change: ReturnType<typeof prepareChange>, also: Also | undefined, whole: boolean,
): Promise<{ row: DocumentRow | null } | undefined> {
  const { events, receptor } = change;
  const moved = await transitionDocument(q, current, to, { ...info, detail: info.detail ?? null, receptor }, events, also?.(transitionedDocument(q)) ?? null, whole);
  if (moved === undefined) return undefined;
  await events.settle(q, moved.eventOutcomes);
  return { row: moved.row };
}

/**
 * Moves `doc` to `to` with its history row and event, in the caller's transaction: one
 * statement (transitionDocument). The event is numbered from `doc` as read, so the statement
 * holds only while the document's event_seq is still that; should another change of the document
 * have numbered an event meanwhile (its buyer leg, its e-mail), the document is read again under
 * its row lock, which keeps it so for the second try. Returns undefined when the document was no
 * longer in `doc.estado` (someone else moved it).
 */
export async function transition(tx: Queryable, outbox: EventOutbox, doc: DocumentRow, to: Estado, info: DgiiInfo, also?: Also): Promise<DocumentRow | undefined> {
  if (!canTransition(doc.estado, to)) throw new Error(`a document cannot go from ${doc.estado} to ${to}`);
  let current: DocumentRow | undefined = doc;
  for (let attempt = 0; attempt < 2 && current !== undefined && current.estado === doc.estado; attempt++) {
    const moved = await runChange(tx, current, to, info, prepareChange(tx, outbox, current, to, info), also, true);
    if (moved?.row != null) return moved.row;
    current = await lockDocument(tx, doc.id);
  }
  return undefined;
}

/**
 * transition() when the change is all the caller writes: its one statement runs on its own,
 * without the BEGIN and COMMIT a single statement does not need (it is atomic by itself): two
 * round trips fewer per change. A transaction is opened still when a listener of the outbox
 * writes after the statement (the buyer's e-mail on a verdict), or when the document changed
 * meanwhile and must be read again under its lock. True when the document moved; the moved row
 * is not read back.
 */
export async function transitionAlone(sql: Sql, outbox: EventOutbox, doc: DocumentRow, to: Estado, info: DgiiInfo, also?: Also): Promise<boolean> {
  if (!canTransition(doc.estado, to)) throw new Error(`a document cannot go from ${doc.estado} to ${to}`);
  const change = prepareChange(sql, outbox, doc, to, info);
  // null: not run, as a listener writes after it; undefined: the document changed meanwhile.
  const moved = change.events.writesAfter ? null : await runChange(sql, doc, to, info, change, also, false);
  if (moved != null) return true;
  return sql.begin(async (tx) => {
    // Changed meanwhile: read again under its lock, so that the change holds at once.
    const current = moved === undefined ? await lockDocument(tx, doc.id) : doc;
    return current !== undefined && current.estado === doc.estado && (await transition(tx, outbox, current, to, info, also)) !== undefined;
  });
}
