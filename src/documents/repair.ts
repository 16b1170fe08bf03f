import type { Queryable } from '../db/connect.ts';
import { insertJob } from '../queue/queries.ts';
import { POLL_JOB_KEY_PREFIX, type PollPayload } from './pipeline.ts';
import { documentsAwaitingVerdictWithoutJob, documentsToSubmitWithoutJob } from './queries.ts';

// The jobs of documents in flight, given back by the periodic job repair when a document has
// lost its job (a write lost to the database driver did that once): `recibido` needs its
// submission job, `en_proceso` its poll job. Final states need none.

/**
 * The key of a submission job the repair makes. The job made with the document has none; the
 * repair's has one so that two repairs at once (two instances) add it once.
 */
export const SUBMIT_JOB_KEY_PREFIX = 'submit:';

/** A submission job, due now, for up to `limit` `recibido` documents without one. */
export async function recreateSubmitJobs(sql: Queryable, limit: number, recreated: () => void): Promise<number> {
  const docs = await documentsToSubmitWithoutJob(sql, limit);
  for (const d of docs) {
    // The run asks DGII first if the document was signed (and so maybe sent) before.
    const id = await insertJob(sql, { kind: 'document.submit', payload: { documentId: d.id }, uniqueKey: SUBMIT_JOB_KEY_PREFIX + d.id });
    if (id !== null) recreated();
  }
  return docs.length;
}

/**
 * A poll job, due now, for up to `limit` `en_proceso` documents without one. The poll timeout
 * still counts from when the document went en_proceso (its last change).
 */
export async function recreatePollJobs(sql: Queryable, limit: number, intervalMs: number, recreated: () => void): Promise<number> {
  const docs = await documentsAwaitingVerdictWithoutJob(sql, POLL_JOB_KEY_PREFIX, limit);
  for (const d of docs) {
    const payload: PollPayload = { documentId: d.id, trackId: d.trackId, since: d.updatedAt.getTime(), interval: intervalMs };
    const id = await insertJob(sql, { kind: 'document.poll', payload: { ...payload }, uniqueKey: POLL_JOB_KEY_PREFIX + d.id });
    if (id !== null) recreated();
  }
  return docs.length;
}
