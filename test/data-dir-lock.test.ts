import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openEmbedded } from '../src/db/connect.ts';
import { createLogger } from '../src/log.ts';
import { embeddedSeed } from './helpers/db.ts';
import { ROOT } from './helpers/process.ts';
import { TEST_MASTER_KEY } from './helpers/service.ts';

// The embedded database's directory is opened by one process at a time (npm start and
// npm run tenant on the same DATA_DIR would otherwise write diverging copies).

const run = promisify(execFile);
const silent = createLogger('silent');

/** Runs `body` with a fresh temporary directory, removed afterwards whatever happens. */
async function inTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ecf-lock-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The pid of a process that has already exited: what a crash leaves in a lock file. */
async function goneProcessPid(): Promise<number | undefined> {
  const gone = spawn(process.execPath, ['-e', '']);
  await once(gone, 'exit');
  return gone.pid;
}

test('a second open of the same data directory is refused, naming the process that holds it', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'ecf-lock-'));
  const pgdata = join(dataDir, 'pgdata');
  try {
    const first = await openEmbedded(pgdata, silent, await embeddedSeed());
    try {
      assert.equal(await readFile(`${pgdata}.lock`, 'utf8'), `${process.pid}\n`);
      await assert.rejects(openEmbedded(pgdata, silent), new RegExp(`is in use by process ${process.pid}\\b`));
      // Another process: the operator command, on the directory the service has open.
      const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ECF_MASTER_KEY: TEST_MASTER_KEY, SCRYPT_LOG_N: '12', LOG_LEVEL: 'error' };
      const cli = await run(process.execPath, ['src/cli/tenant.ts', 'create', '--name', 'Otra SRL', '--rnc', '131880681', '--email', 'otra@example.com'], { cwd: ROOT, env })
        .then(() => null, (err: { code: number; stderr: string }) => err);
      assert.ok(cli !== null, 'npm run tenant must refuse');
      assert.equal(cli.code, 1);
      assert.match(cli.stderr, new RegExp(`in use by process ${process.pid} \\(a running service or \`npm run tenant\`\\)`));
      assert.doesNotMatch(cli.stderr, /\n\s+at /, 'the message alone, no stack');
      const [row] = await first.sql`select count(*)::int as n from pg_tables where tablename = 'tenants'`;
      assert.equal(row?.n, 0, 'the refused command wrote nothing');
    } finally {
      await first.close();
    }
    await assert.rejects(access(`${pgdata}.lock`), /ENOENT/, 'closing releases the lock');
    const again = await openEmbedded(pgdata, silent);
    await again.close();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a stale lock, left by a process that is gone, is taken over', () => inTempDir(async (dataDir) => {
  const pgdata = join(dataDir, 'pgdata');
  await mkdir(pgdata, { recursive: true });
  await writeFile(`${pgdata}.lock`, `${await goneProcessPid()}\n`);
  const db = await openEmbedded(pgdata, silent, await embeddedSeed());
  try {
    assert.equal(await readFile(`${pgdata}.lock`, 'utf8'), `${process.pid}\n`);
    const [row] = await db.sql`select 1 as one`;
    assert.equal(row?.one, 1);
  } finally {
    await db.close();
  }
}));

test('a lock naming this process\'s pid that this process never took is stale (a container restarted with the same pid)', () => inTempDir(async (dataDir) => {
  const pgdata = join(dataDir, 'pgdata');
  await mkdir(pgdata, { recursive: true });
  await writeFile(`${pgdata}.lock`, `${process.pid}\n`);
  const db = await openEmbedded(pgdata, silent, await embeddedSeed());
  await db.close();
}));

test('processes racing to take over one stale lock: exactly one gets it', () => inTempDir(async (dir) => {
  const lockFile = join(dir, 'pgdata.lock');
  await writeFile(lockFile, `${await goneProcessPid()}\n`);
  // All start together on a word from the test, and each holds what it got until every one
  // has answered, so a winner is never mistaken for a stale owner.
  const script = `
    import { lockDataDir } from './src/db/data-dir-lock.ts';
    const lines = process.stdin.setEncoding('utf8');
    console.log('ready');
    await new Promise((resolve) => lines.once('data', resolve));
    const outcome = await lockDataDir(process.argv[1]).then(() => 'locked', (err) => err.name);
    console.log(outcome);
    await new Promise((resolve) => lines.once('end', resolve).resume());`;
  const racers = Array.from({ length: 6 }, () => spawn(process.execPath, ['--input-type=module', '-e', script, lockFile], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] }));
  const outputs = racers.map((child) => {
    const lines: string[] = [];
    let waiting: (() => void) | null = null;
    let rest = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
      waiting?.();
    });
    return async (n: number): Promise<string> => {
      while (lines.length < n) await new Promise<void>((resolve) => (waiting = resolve));
      return lines[n - 1] ?? '';
    };
  });
  assert.deepEqual(await Promise.all(outputs.map((line) => line(1))), Array(6).fill('ready'));
  for (const child of racers) child.stdin.write('go\n');
  const outcomes = await Promise.all(outputs.map((line) => line(2)));
  const owner = Number((await readFile(lockFile, 'utf8')).trim());
  for (const child of racers) child.stdin.end();
  await Promise.all(racers.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
  assert.deepEqual(outcomes.filter((o) => o === 'locked').length, 1, outcomes.join(', '));
  assert.deepEqual(outcomes.filter((o) => o !== 'locked'), Array(5).fill('DataDirInUseError'));
  assert.equal(racers[outcomes.indexOf('locked')]?.pid, owner, 'the lock names the one that got it');
}));
