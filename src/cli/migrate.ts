import { openDatabase } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { createLogger } from '../log.ts';
import { configOrExit, exitWithError } from './exit.ts';

// npm run migrate: applies pending migrations and exits (the service also does it at start).
const config = configOrExit();
const log = createLogger(config.logLevel);
try {
  const db = await openDatabase(config, log);
  try {
    const applied = await migrate(db.sql, log);
    log.info(applied.length === 0 ? 'database is up to date' : 'migrations applied', { applied });
  } finally {
    await db.close();
  }
} catch (err) {
  exitWithError('migration failed', err);
}
