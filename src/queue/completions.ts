import type { Queryable } from '../db/connect.ts';
import { completeJobs } from './queries.ts';

interface Pending {
  id: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** At most this many ids in one statement. */
const MAX_BATCH = 1_000;

/**
 * Writes finished jobs' completions together: one `DELETE … WHERE id = ANY(…)` per batch
 * instead of a commit per job. The first completion of a turn of the event loop waits for
 * the rest of that turn; completions arriving while a batch is being written make the next
 * one (group commit), so a quiet queue completes each job at once and a busy one in batches
 * as large as the commits are slow. A job stays leased (and renewed) until its batch is
 * written: a process killed meanwhile leaves it to be taken over when the lease expires,
 * and its run repeated, as a process killed just before a single delete would.
 */
export class CompletionBatcher {
  private pending: Pending[] = [];
  private writing = false;
  private readonly sql: Queryable;
  private readonly owner: string;

  constructor(sql: Queryable, owner: string) {
    this.sql = sql;
    this.owner = owner;
  }

  /** Resolves once the job's completion is written (or found no longer owned). */
  complete(id: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ id, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.write());
      }
    });
  }

  private async write(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      try {
        await completeJobs(this.sql, batch.map((p) => p.id), this.owner);
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
    this.writing = false;
  }
}
