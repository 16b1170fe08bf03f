import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { call } from '../helpers/http.ts';
import { processGone } from '../helpers/process.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { waitFor } from '../helpers/wait.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances } from './helpers/instances.ts';

// WEB_CONCURRENCY=2: one primary and two node:cluster workers sharing the port, each a
// whole service (HTTP and background jobs). Both answer requests; SIGTERM to the primary
// drains them all within the grace period.

const GRACE_MS = 3_000;
let db: TestDatabase;
before(async () => {
  db = await faultDatabase();
});
after(async () => {
  await stopAllInstances();
  await db?.close();
});

/** One request on a connection of its own (the cluster hands out connections, not requests). */
function healthOnNewConnection(url: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: '/healthz', agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The direct children of a process (Linux). */
function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((x) => x !== '').map(Number);
}

test('WEB_CONCURRENCY=2 runs two workers that both answer, and SIGTERM stops them all within the grace period', async () => {
  const env = await faultEnv(db.url, { WEB_CONCURRENCY: '2', SHUTDOWN_GRACE_MS: String(GRACE_MS), PORT: '0' });
  const instance = await startInstance(env);
  // Both workers listening (each logs its own line, naming itself).
  await waitFor(() => new Set(instance.process.output.join('').match(/"msg":"listening","worker":\d+/g) ?? []).size === 2, 60_000, 'two workers listening');
  const listeningLines = instance.process.output.join('').split('\n').filter((l) => l.includes('"msg":"listening"'));
  assert.ok(listeningLines.every((l) => l.includes('"workers":true')), 'each worker runs the background jobs too');
  const workers = childPids(instance.pid);
  assert.equal(workers.length, 2, 'the primary has two worker processes');

  for (let i = 0; i < 60; i++) assert.equal(await healthOnNewConnection(instance.url), 200);
  assert.equal((await call(instance.url, 'GET', '/readyz')).status, 200);
  const answeredBy = new Set<string>();
  for (const line of instance.process.output.join('').split('\n')) {
    const m = /"msg":"request","worker":(\d+).*"route":"\/healthz"/.exec(line);
    if (m?.[1] !== undefined) answeredBy.add(m[1]);
  }
  assert.deepEqual([...answeredBy].sort(), ['1', '2'], 'both workers answered requests');

  const asked = Date.now();
  const code = await instance.stop();
  assert.equal(code, 0);
  assert.ok(Date.now() - asked < GRACE_MS + 5_000, `stopped in ${Date.now() - asked} ms`);
  for (const pid of workers) await waitFor(() => processGone(pid), 5_000, `worker ${pid} gone`);
  const out = instance.process.output.join('');
  assert.equal((out.match(/"msg":"stopped"/g) ?? []).length, 2, 'each worker drained and stopped');
});
