import type { Queryable } from '../db/connect.ts';
import type { EventOutbox, Fragment } from '../events/outbox.ts';
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

/**
 * Moves `doc` to `to` with its history row and event, in the caller's transaction: one
 * statement (transitionDocument). The event is numbered from `doc` as read, so the statement
 * holds only while the document's event_seq is still that; should another change of the document
 * have numbered an event meanwhile (its buyer leg, its e-mail), the document is read again under
 * its row lock, which keeps it so for the second try. Returns undefined when the document was no
 * longer in `doc.estado` (someone else moved it).
 */
export async function transition(
  tx: Queryable, outbox: EventOutbox, doc: DocumentRow, to: Estado, info: DgiiInfo,
  /** Written with the change, in its statement: given the moved row's id (a select), e.g. insertJobsFor. */
  also?: (moved: Fragment) => Fragment,
): Promise<DocumentRow | undefined> {
  if (!canTransition(doc.estado, to)) throw new Error(`a document cannot go from ${doc.estado} to ${to}`);
  let current: DocumentRow | undefined = doc;
  for (let attempt = 0; attempt < 2 && current !== undefined && current.estado === doc.estado; attempt++) {
    const payload = statusUpdatePayload({
      ...current,
      estado: to,
      dgiiCode: info.dgiiCode,
      dgiiMessage: info.dgiiMessage,
      trackId: info.trackId ?? current.trackId,
      secuenciaUtilizada: info.secuenciaUtilizada ?? current.secuenciaUtilizada,
    });
    const events = outbox.prepare(tx, 'ecf.status_update', [{ tenantId: current.tenantId, payload, sequence: current.eventSeq + 1 }], transitionedDocument(tx));
    const moved = await transitionDocument(tx, current, to, { ...info, detail: info.detail ?? null }, events, also?.(transitionedDocument(tx)) ?? null);
    if (moved !== undefined) {
      await events.settle(tx, moved.eventOutcomes);
      return moved.row;
    }
    current = await lockDocument(tx, doc.id);
  }
  return undefined;
}
