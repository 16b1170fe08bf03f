import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { call, newTenant } from './helpers/http.ts';
import { processGone, ROOT, spawnService } from './helpers/process.ts';
import { testEnv } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

let db: TestDatabase;
let dataDir: string;
before(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'ecf-shutdown-'));
});
after(async () => {
  await db.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('SIGTERM lets an in-flight request finish, then the process exits 0', async () => {
  const svc = await spawnService(testEnv(dataDir, { DATABASE_URL: db.url, LOG_LEVEL: 'info' }));
  const body = JSON.stringify({ email: 'drain@example.com', password: 'long enough password', name: 'Drain SRL', rnc: '130000001' });
  const { hostname, port } = new URL(svc.url);
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request({ hostname, port, method: 'POST', path: '/TesteCF/customer/register', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    // Half the body now, the SIGTERM, then the rest: the request is in flight during shutdown.
    req.write(body.slice(0, 20));
    // A second for the server to accept the connection even on a loaded machine.
    setTimeout(() => {
      svc.child.kill('SIGTERM');
      setTimeout(() => req.end(body.slice(20)), 300);
    }, 1000);
  });
  const res = await response;
  assert.equal(res.status, 201, res.text);
  assert.equal(await svc.exited, 0);
  assert.match(svc.output.join(''), /"msg":"shutting down","signal":"SIGTERM"/);
});

test('the development master key is generated once under DATA_DIR with mode 0600, and reused by the next start', async () => {
  const keyDir = await mkdtemp(join(tmpdir(), 'ecf-key-'));
  // The same database across both starts: a server database of its own (the file's is checked
  // against the test key), or an embedded one on disk under keyDir.
  const own = db.url === 'memory://' ? null : await createTestDatabase();
  const env = testEnv(keyDir, own === null ? {} : { DATABASE_URL: own.url });
  delete (env as Record<string, string | undefined>).ECF_MASTER_KEY;
  try {
    const first = await spawnService(env);
    const tenant = await newTenant(first.url, { rnc: '130000026' });
    first.child.kill('SIGINT');
    assert.equal(await first.exited, 0);
    const info = await stat(join(keyDir, 'master.key'));
    assert.equal(info.mode & 0o777, 0o600);
    assert.match(first.output.join(''), /generated a development master key/);
    const key = await readFile(join(keyDir, 'master.key'), 'utf8');

    const second = await spawnService(env);
    try {
      assert.doesNotMatch(second.output.join(''), /generated a development master key/, 'no second key, no second warning');
      assert.equal(await readFile(join(keyDir, 'master.key'), 'utf8'), key);
      // A token signed under the first start's key still verifies: the same key is in use.
      const me = await call(second.url, 'GET', '/api/account', { headers: { authorization: `Bearer ${tenant.accessToken}` } });
      assert.equal(me.status, 200, me.text);
    } finally {
      second.child.kill('SIGINT');
      await second.exited;
    }
  } finally {
    await own?.close();
    await rm(keyDir, { recursive: true, force: true });
  }
});

test('production without ECF_MASTER_KEY refuses to start with a clear message', async () => {
  await assert.rejects(spawnService({ NODE_ENV: 'production', PORT: '0', DATABASE_URL: db.url }), /ECF_MASTER_KEY is required when NODE_ENV=production/);
});

test('SIGTERM to the `npm start` process reaches the service, which stops within its grace period', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ecf-npm-start-'));
  // npm puts node_modules/.bin first on the script's PATH, as it does for an operator.
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...testEnv(dir, { DATABASE_URL: db.url, LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '5000' }), PATH: process.env.PATH ?? '', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  npm.stdout.on('data', (d: Buffer) => output.push(d.toString()));
  npm.stderr.on('data', (d: Buffer) => output.push(d.toString()));
  const npmExited = once(npm, 'exit');
  let servicePid: number | undefined;
  try {
    servicePid = await waitFor(async () => {
      if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${output.join('')}`);
      const pid = /"msg":"listening".*?"pid":(\d+)/.exec(output.join(''))?.[1];
      return pid === undefined ? undefined : Number(pid);
    }, 90_000, 'the service listening');
    assert.notEqual(servicePid, npm.pid, 'npm runs the service as its own process');
    const signalled = Date.now();
    npm.kill('SIGTERM');
    await npmExited;
    await waitFor(async () => processGone(servicePid as number), 10_000, `service process ${servicePid} gone`);
    assert.ok(Date.now() - signalled < 10_000);
    const log = output.join('');
    assert.match(log, /"msg":"shutting down","signal":"SIGTERM"/, 'the service itself received SIGTERM');
    assert.match(log, /"msg":"stopped"/);
  } finally {
    if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    if (servicePid !== undefined && !(await processGone(servicePid))) process.kill(servicePid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
