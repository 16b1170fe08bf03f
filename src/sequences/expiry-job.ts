import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log.ts';
import { insertJob } from '../queue/queries.ts';
import type { JobDefinition } from '../queue/runtime.ts';
import type { SequenceService } from './service.ts';

// One periodic job, unique across instances by its unique_key: sequence.expiring for the
// active ranges that entered the warning window since the last run. Registration checks the
// new range at once; this catches the ranges that get there with the passing days.
const EVERY_MS = 60 * 60_000;
const UNIQUE_KEY = 'sequences.expiry';

export async function scheduleExpiryCheck(sql: Sql): Promise<void> {
  await insertJob(sql, { kind: 'sequences.expiry', uniqueKey: UNIQUE_KEY });
}

export function expiryJob(sequences: SequenceService, log: Logger): JobDefinition<'sequences.expiry'> {
  return {
    async run() {
      const announced = await sequences.checkExpiring();
      if (announced > 0) log.info('eNCF ranges about to expire announced', { ranges: announced });
      return { retryIn: EVERY_MS };
    },
  };
}
