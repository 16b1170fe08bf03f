import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log.ts';
import { insertJob } from '../queue/queries.ts';
import type { JobDefinition } from '../queue/runtime.ts';

// One periodic job, kept unique across instances by its unique_key, that deletes what
// has expired: idempotency records past their 24 h and sessions past their lifetime.
const EVERY_MS = 15 * 60_000;
const BATCH = 1000;
const UNIQUE_KEY = 'maintenance.purge';

export async function scheduleMaintenance(sql: Sql): Promise<void> {
  await insertJob(sql, { kind: 'maintenance.purge', uniqueKey: UNIQUE_KEY });
}

/** What the purge deletes, each through the service that owns the records (app.ts wires them). */
export interface Purges {
  /** Deletes up to `batch` expired idempotency records; answers how many. */
  idempotencyKeys(batch: number): Promise<number>;
  /** Deletes expired sessions; answers how many. */
  sessions(): Promise<number>;
}

export function maintenanceJob(purges: Purges, log: Logger): JobDefinition<'maintenance.purge'> {
  return {
    async run(_job, ctx) {
      let keys = 0;
      for (let n = BATCH; n === BATCH && !ctx.signal.aborted; ) {
        n = await purges.idempotencyKeys(BATCH);
        keys += n;
      }
      const sessions = await purges.sessions();
      if (keys + sessions > 0) log.info('purged expired records', { idempotencyKeys: keys, sessions });
      return { retryIn: EVERY_MS };
    },
  };
}
