import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestDatabase } from '../helpers/db.ts';
import { newTenant } from '../helpers/http.ts';
import { waitFor } from '../helpers/wait.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';
import { TcpProxy } from './helpers/tcp-proxy.ts';

// A partition without a reset: the database's connections stay open and nothing comes back.
// The driver has no timeout of its own for a statement, so without the request deadline
// (HTTP_DEADLINE_MS) a request waited until TCP gave up (45 s seen). Each request must now
// answer 503 with Retry-After by its deadline, and the service serve again once the
// partition heals.

const DEADLINE_MS = 1500;
/** Generous against a loaded 2-core machine, and far below what TCP takes to give up. */
const ANSWERED_WITHIN_MS = 8_000;

let db: TestDatabase;
let proxy: TcpProxy;
let instance: Instance;
before(async () => {
  db = await faultDatabase();
  const server = new URL(db.url);
  proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port || 5432) });
  instance = await startInstance(await faultEnv(proxy.rewrite(db.url), { HTTP_DEADLINE_MS: String(DEADLINE_MS), WORKERS_ENABLED: 'false' }));
});
after(async () => {
  proxy?.thaw();
  await stopAllInstances();
  await proxy?.close();
  await db?.close();
});

async function timed(path: string, init: RequestInit = {}): Promise<{ status: number; ms: number; retryAfter: string | null; code: unknown }> {
  const started = performance.now();
  const res = await fetch(`${instance.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let code: unknown = null;
  try {
    code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code ?? null;
  } catch {
    // not JSON
  }
  return { status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after'), code };
}

test('during a partition without a reset, requests that need the database answer 503 with Retry-After by their deadline, and serve again once it heals', async () => {
  const tenant = await newTenant(instance.url);
  const key = { 'x-api-key': tenant.apiKey };
  assert.equal((await timed('/TesteCF/documentos-ecf', { headers: key })).status, 200);

  proxy.freeze();
  try {
    // A read through a cached API key, a sign-in (its user's row), and an emit: each waits on the database.
    const outcomes = await Promise.all([
      timed('/TesteCF/documentos-ecf', { headers: key }),
      timed('/TesteCF/customer/authentication', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: tenant.email, password: tenant.password }) }),
      timed('/TesteCF/estadisticas?desde=2026-01-01&hasta=2026-01-31', { headers: key }),
    ]);
    for (const o of outcomes) {
      assert.equal(o.status, 503, JSON.stringify(o));
      assert.equal(o.code, 'SERVICE_UNAVAILABLE');
      assert.equal(o.retryAfter, '5');
      assert.ok(o.ms >= DEADLINE_MS - 50, `answered after ${Math.round(o.ms)} ms, not before the deadline`);
      assert.ok(o.ms < ANSWERED_WITHIN_MS, `answered after ${Math.round(o.ms)} ms`);
    }
    // What needs no database is not held up.
    const health = await timed('/healthz');
    assert.equal(health.status, 200);
  } finally {
    proxy.thaw();
  }
  await waitFor(async () => (await timed('/TesteCF/documentos-ecf', { headers: key })).status === 200, 20_000, 'the service serving again');
});
