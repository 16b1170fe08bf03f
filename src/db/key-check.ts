import { timingSafeEqual } from 'node:crypto';
import { masterKeyCheckValue } from '../crypto/master-key.ts';
import type { Logger } from '../log.ts';
import type { Sql } from './connect.ts';
import { storedKeyCheck, storeKeyCheck } from './key-check-queries.ts';

/** The master key does not open this database's secrets: the start stops with this message. */
export class MasterKeyMismatchError extends Error {
  constructor(since: Date) {
    super(
      `ECF_MASTER_KEY is not the master key of this database (its check value, stored at the first start on ${since.toISOString().slice(0, 10)}, ` +
        'does not match): tokens, webhook secrets and certificate keys would not open. Set ECF_MASTER_KEY to the key this database was started with ' +
        '(in development, the one in DATA_DIR/master.key).',
    );
    this.name = 'MasterKeyMismatchError';
  }
}

/**
 * Compares the master key with the check value the database holds, storing it at the first
 * start (a database from before this check stores the key it is started with then).
 * Throws MasterKeyMismatchError when they differ.
 */
export async function checkMasterKey(sql: Sql, master: Buffer, log: Logger): Promise<void> {
  const mine = masterKeyCheckValue(master);
  let stored = await storedKeyCheck(sql);
  if (stored === null) {
    await storeKeyCheck(sql, mine);
    stored = await storedKeyCheck(sql);
    log.info('stored the master key check value');
  }
  if (stored === null || stored.checkValue.length !== mine.length || !timingSafeEqual(stored.checkValue, mine)) {
    throw new MasterKeyMismatchError(stored?.createdAt ?? new Date());
  }
}
