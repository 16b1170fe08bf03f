import type { Queryable } from '../db/connect.ts';
import { insertJob } from '../queue/queries.ts';
import { annulmentsToSubmitWithoutJob } from './queries.ts';

/** The key of a submission job the repair makes, so that two repairs at once add it once. */
export const ANNULMENT_JOB_KEY_PREFIX = 'annulment:';

/** An `annulment.submit` job, due now, for up to `limit` annulments in `recibido` without one. */
export async function recreateAnnulmentJobs(sql: Queryable, limit: number, recreated: () => void): Promise<number> {
  const rows = await annulmentsToSubmitWithoutJob(sql, limit);
  for (const a of rows) {
    // The job sends the ANECF it stored if it signed one before: DGII accepts the identical span again.
    const id = await insertJob(sql, { kind: 'annulment.submit', payload: { annulmentId: a.id }, uniqueKey: ANNULMENT_JOB_KEY_PREFIX + a.id });
    if (id !== null) recreated();
  }
  return rows.length;
}
