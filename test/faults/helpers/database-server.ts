import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// The fault suite cuts connections, kills processes and runs several instances on one
// database: none of that is meaningful on the embedded database, so it needs a server.

const NEEDS_SERVER = 'The fault tests need a PostgreSQL server: set TEST_DATABASE_URL (e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run test:faults)';

/** The server's URL; throws at once, with what to do, when TEST_DATABASE_URL is not set. */
export function requireDatabaseServer(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined || url.trim() === '') throw new Error(NEEDS_SERVER);
  return url;
}

/** A fresh database of its own on the server (dropped by close()). */
export async function faultDatabase(): Promise<TestDatabase> {
  requireDatabaseServer();
  return createTestDatabase({ migrated: true });
}
