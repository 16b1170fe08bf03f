import type { Database } from '../db/connect.ts';
import type { Logger } from '../log.ts';
import type { JobKind } from './kinds.ts';
import { JOBS_CHANNEL, notifyJobs } from './queries.ts';

/**
 * Wakes idle workers on other instances when jobs are enqueued, with PostgreSQL's
 * LISTEN/NOTIFY: `announce` sends a notification naming the kind, and every instance
 * listening nudges its runtime for that kind. A wake-up beside polling, not instead of it:
 * a notification lost (listener reconnecting, NOTIFY failing) only means the job waits for
 * the next poll. Announcements are coalesced: while one is being sent, the kinds announced
 * meanwhile go in the next one, so a burst of enqueues costs a statement or two, and the
 * NOTIFY runs in its own autocommit statement outside the enqueueing transaction (a
 * notifying commit takes a database-wide lock, which would serialize those transactions).
 * The embedded database (PGlite) serves one process only: there the local nudge is enough
 * and nothing is sent or listened for.
 */
export class JobWakeups {
  private readonly db: Database;
  private readonly log: Logger;
  private readonly pending = new Set<JobKind>();
  private sending = false;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(db: Database, log: Logger) {
    this.db = db;
    this.log = log;
  }

  get enabled(): boolean {
    return this.db.kind === 'postgres';
  }

  /** Calls `onWake(kind)` for each job kind another instance (or this one) announces. */
  async listen(onWake: (kind: string) => void): Promise<void> {
    if (!this.enabled || this.unlisten !== null) return;
    const request = await this.db.sql.listen(JOBS_CHANNEL, onWake);
    this.unlisten = () => request.unlisten();
  }

  announce(kind: JobKind): void {
    if (!this.enabled) return;
    this.pending.add(kind);
    if (this.sending) return;
    this.sending = true;
    void this.send();
  }

  private async send(): Promise<void> {
    while (this.pending.size > 0) {
      const kinds = [...this.pending];
      this.pending.clear();
      try {
        await notifyJobs(this.db.sql, kinds);
      } catch (err) {
        // Polling finds the jobs anyway.
        this.log.warn('could not announce enqueued jobs', { err });
      }
    }
    this.sending = false;
  }

  async close(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.().catch(() => {});
  }
}
