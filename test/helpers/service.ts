import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type Service } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import type { Sql } from '../../src/db/connect.ts';
import type { TaxAuthority } from '../../src/dgii/authority.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export const TEST_MASTER_KEY = 'a1'.repeat(32);

/** Environment of a service under test; fast password hashing, quiet logs, port 0. */
export function testEnv(dataDir: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ECF_MASTER_KEY: TEST_MASTER_KEY,
    SCRYPT_LOG_N: '12',
    DATA_DIR: dataDir,
    // Test code blocks its own event loop at times (openssl, xmllint run synchronously), so
    // fetch's keep-alive pool cannot retire idle connections on time; a server closing them
    // after the default 5 s would race a request sent on one ("fetch failed").
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000',
    ...overrides,
  };
}

export interface TestService {
  service: Service;
  url: string;
  sql: Sql;
  config: Config;
  database: TestDatabase;
  /** Log lines written by the service (only captured when `captureLog` is set). */
  logLines: string[];
  close(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  /** Share an existing database (several instances on one database). */
  database?: TestDatabase;
  captureLog?: boolean;
  authority?: TaxAuthority;
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ecf-test-'));
  const database = options.database ?? (await createTestDatabase({ migrated: true }));
  const config = loadConfig(testEnv(dataDir, { DATABASE_URL: database.url, ...options.env }));
  const logLines: string[] = [];
  const log: Logger = options.captureLog === true
    ? createLogger('debug', (line) => logLines.push(line))
    : createLogger(config.logLevel);
  const service = await startService(config, { log, database: database.db, ...(options.authority === undefined ? {} : { authority: options.authority }) });
  return {
    service,
    url: service.url,
    sql: database.db.sql,
    config,
    database,
    logLines,
    close: async () => {
      await service.close();
      if (options.database === undefined) await database.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
