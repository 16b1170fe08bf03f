import type { Sql } from '../db/connect.ts';
import { deleteExpiredSessions } from '../auth/queries.ts';
import { purgeExpiredKeys } from '../idempotency/queries.ts';
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

export function maintenanceJob(sql: Sql, log: Logger): JobDefinition {
  return {
    async run(_job, ctx) {
      let keys = 0;
      for (let n = BATCH; n === BATCH && !ctx.signal.aborted; ) {
        n = await purgeExpiredKeys(sql, BATCH);
        keys += n;
      }
      const sessions = await deleteExpiredSessions(sql);
      if (keys + sessions > 0) log.info('purged expired records', { idempotencyKeys: keys, sessions });
      return { retryIn: EVERY_MS };
    },
  };
}
