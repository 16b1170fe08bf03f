import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import postgres from 'postgres';
import { loadConfig } from '../src/config.ts';
import { createHttpServer } from '../src/http/server.ts';
import { Router } from '../src/http/router.ts';
import { createLogger } from '../src/log.ts';
import { RateLimits } from '../src/ratelimit/limiter.ts';
import { systemRoutes } from '../src/system/routes.ts';
import { AppError } from '../src/errors.ts';
import { call } from './helpers/http.ts';
import { startTestService, TEST_MASTER_KEY } from './helpers/service.ts';

test('/readyz is 200 when the database answers', async () => {
  const t = await startTestService();
  try {
    const res = await call(t.url, 'GET', '/readyz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, data: { status: 'ready' } });
  } finally {
    await t.close();
  }
});

/** A port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

test('/readyz is 503 SERVICE_UNAVAILABLE when the database is unreachable', async () => {
  const config = loadConfig({ PORT: '0', ECF_MASTER_KEY: TEST_MASTER_KEY });
  // The service's pool pointed at a closed port (openDatabase itself would refuse to start).
  const sql = postgres(`postgres://postgres@127.0.0.1:${await closedPort()}/ecf`, { max: 1, connect_timeout: 2, onnotice: () => {} });
  const router = new Router();
  for (const route of systemRoutes({ sql, openapi: () => ({}) })) router.add(route);
  const http = createHttpServer({
    config, log: createLogger('silent'), router, rateLimits: new RateLimits(config.rateLimits),
    authenticator: { authenticate: async () => { throw new AppError('UNAUTHORIZED'); } },
  });
  const { url } = await http.listen();
  try {
    const res = await call(url, 'GET', '/readyz');
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.equal((await call(url, 'GET', '/healthz')).status, 200, 'the process itself is alive');
  } finally {
    await http.close();
    await sql.end({ timeout: 1 });
  }
});
