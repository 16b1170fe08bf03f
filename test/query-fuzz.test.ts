import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { newTenant } from './helpers/http.ts';
import { spawnService, type ServiceProcess } from './helpers/process.ts';
import { testEnv } from './helpers/service.ts';

// Issue 28, item 2: one request (`GET /{env}/estadisticas?desde=9999-12-31&hasta=9999-12-31`)
// used to spin the event loop until the heap ran out. Every route of the OpenAPI document gets
// extreme values in each of its query parameters (and, for a GET, in the usual date and number
// names it might read without documenting them): each answer must be a 4xx, or a 2xx where the
// value is fine, within a second, and the service must still answer. The service runs as its own
// process so that a hang shows as a timeout here instead of stopping this test.

const HANG_MS = 1_000;
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const GENERIC = ['desde', 'hasta', 'pageSize', 'cursor'];
const EXTREME = [
  '9999-12-31', '31-12-9999', '0001-01-01', '1999-12-31', '2024-02-30', '+010000-01-01', '275760-09-13',
  '-1', '-99999999999', '0', '1e308', '-1e308', '1.5', '0x10', 'NaN', 'Infinity', '99999999999999999999',
  '', ' ', '%00', 'x'.repeat(8_000), '9'.repeat(4_000),
];

interface Operation { parameters?: { name?: string; in?: string }[] }

let dataDir: string;
let db: TestDatabase;
let svc: ServiceProcess;
let bearer: string;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ecf-fuzz-'));
  db = await createTestDatabase();
  const limits = { RATE_LIMIT_DEFAULT_PER_MINUTE: '1000000', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000000', RATE_LIMIT_RECEIVER_PER_MINUTE: '1000000', RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE: '1000000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000000' };
  svc = await spawnService(testEnv(dataDir, { ...(db.url === 'memory://' ? {} : { DATABASE_URL: db.url }), ...limits }));
  bearer = (await newTenant(svc.url)).accessToken;
});

after(async () => {
  svc?.child.kill('SIGKILL');
  await svc?.exited;
  await db?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function timed(method: string, path: string): Promise<number> {
  try {
    const res = await fetch(svc.url + path, { method, headers: { authorization: `Bearer ${bearer}` }, signal: AbortSignal.timeout(HANG_MS) });
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    throw new Error(`${method} ${path.slice(0, 200)} gave no complete answer within ${HANG_MS} ms: ${String(err)}`);
  }
}

async function stillAnswering(after: string): Promise<void> {
  assert.equal(await timed('GET', '/healthz'), 200, `the service stopped answering after ${after}`);
}

test('the statistics request that used to stop the service is a 422, and the service still answers', async () => {
  for (const query of ['desde=9999-12-31&hasta=9999-12-31', 'desde=31-12-9999', 'hasta=9999-12-31', 'desde=1900-01-01&hasta=1900-12-31']) {
    assert.equal(await timed('GET', `/TesteCF/estadisticas?${query}`), 422, query);
  }
  assert.equal(await timed('GET', '/TesteCF/estadisticas?desde=2000-01-01&hasta=2000-12-31'), 200);
  await stillAnswering('the statistics requests');
});

test('every route of the OpenAPI document answers extreme query values with a 4xx (or a 2xx) within a second', async () => {
  const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
  let requests = 0;
  let routes = 0;
  const unexpected: string[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!HTTP_METHODS.has(method)) continue;
      routes++;
      const path = template.replace('{env}', 'TesteCF').replace('{rnc}', '101010101').replace('{asset}', 'x.js').replace(/\{[^}]+\}/g, () => randomUUID());
      const documented = (op.parameters ?? []).filter((p) => p.in === 'query' && typeof p.name === 'string').map((p) => p.name as string);
      // Only a GET may be sent undocumented names: a POST without its body must not act.
      const names = new Set([...documented, ...(method === 'get' ? GENERIC : [])]);
      const queries: string[] = [];
      for (const name of names) for (const value of EXTREME) queries.push(`${name}=${encodeURIComponent(value)}`);
      if (names.has('desde') && names.has('hasta')) queries.push('desde=9999-12-31&hasta=9999-12-31', 'desde=0001-01-01&hasta=9999-12-31');
      for (const query of queries) {
        const status = await timed(method.toUpperCase(), `${path}?${query}`);
        requests++;
        if (status >= 500 || status < 200 || (status >= 300 && status < 400)) unexpected.push(`${method.toUpperCase()} ${template}?${query.slice(0, 80)} → ${status}`);
      }
      await stillAnswering(`${method.toUpperCase()} ${template}`);
    }
  }
  assert.deepEqual(unexpected, []);
  assert.ok(routes > 40 && requests > 1_000, `only ${routes} routes and ${requests} requests: is the route reader broken?`);
});

test('out-of-range dates are refused by every list that reads them; an in-range date is fine', async () => {
  for (const path of ['/TesteCF/documentos-ecf', '/TesteCF/documentos-recibidos', '/TesteCF/documentos-ecf/export?format=csv&']) {
    const sep = path.endsWith('&') ? '' : '?';
    assert.equal(await timed('GET', `${path}${sep}desde=9999-12-31`), 422, path);
    assert.equal(await timed('GET', `${path}${sep}hasta=1999-12-31`), 422, path);
    assert.equal(await timed('GET', `${path}${sep}desde=2000-01-01&hasta=2001-01-01`), 200, path);
  }
});
