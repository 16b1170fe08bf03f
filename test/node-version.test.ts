import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { ROOT } from './helpers/process.ts';

// The entry point checks the Node version before any TypeScript is loaded. Proved on a real
// older Node: the machine's system Node (Debian's, v20 here; CI installs the same package).
const SYSTEM_NODE = '/usr/bin/node';
const run = promisify(execFile);

async function outcome(node: string, args: string[], env: Record<string, string> = {}) {
  return run(node, args, { cwd: ROOT, env: { PATH: '/usr/bin:/bin', ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

test('the system Node used here is older than the minimum, so the checks below run on a real old Node', async () => {
  const { stdout } = await run(SYSTEM_NODE, ['--version']);
  const [major, minor] = stdout.trim().slice(1).split('.').map(Number) as [number, number];
  assert.ok(major < 22 || (major === 22 && minor < 18), `${SYSTEM_NODE} is ${stdout.trim()}`);
});

test('on an older Node, bin/ecf-service.js prints one line naming the minimum and Node 24, and exits 1, for every command', async () => {
  const { stdout: version } = await run(SYSTEM_NODE, ['--version']);
  for (const args of [[], ['start'], ['migrate'], ['tenant', 'create', '--name', 'X SRL', '--rnc', '131880681', '--email', 'x@example.com']]) {
    const r = await outcome(SYSTEM_NODE, ['bin/ecf-service.js', ...args], { PORT: 'eighty' });
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `ecf-service needs Node.js >= 22.18 (Node 24 LTS recommended); this is Node ${version.trim()} (${SYSTEM_NODE}): see docs/operations.md, "Installing Node 24".\n`,
    );
  }
  // Without the entry point the same Node fails on the TypeScript itself, which is what the check spares an operator.
  const raw = await outcome(SYSTEM_NODE, ['src/main.ts']);
  assert.notEqual(raw.code, 0);
  assert.match(raw.stderr, /ERR_UNKNOWN_FILE_EXTENSION/);
});

test('on this Node the entry point runs the command it is given, with the command\'s own arguments', async () => {
  const bad = await outcome(process.execPath, ['bin/ecf-service.js', 'tenant', 'create', '--name', 'X SRL', '--rnc', '123', '--email', 'x@example.com']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^--rnc must be 9 or 11 digits\nusage: npm run tenant/);
  const unknown = await outcome(process.execPath, ['bin/ecf-service.js', 'serve']);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, 'unknown command "serve"; usage: ecf-service [start | migrate | tenant create …]\n');
});

test('package.json names the entry point as its bin, and npm start, migrate and tenant go through it; so does the systemd unit', async () => {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
  assert.deepEqual(pkg.bin, { 'ecf-service': 'bin/ecf-service.js' });
  assert.equal(pkg.scripts.start, 'exec node bin/ecf-service.js');
  assert.equal(pkg.scripts.migrate, 'node bin/ecf-service.js migrate');
  assert.equal(pkg.scripts.tenant, 'node bin/ecf-service.js tenant');
  const unit = await readFile(new URL('../scripts/ecf.service', import.meta.url), 'utf8');
  assert.match(unit, /^ExecStart=\/usr\/bin\/node bin\/ecf-service\.js$/m);
  // The file is plain JavaScript an old Node can parse: no type annotations, no TypeScript import.
  const entry = await readFile(new URL('../bin/ecf-service.js', import.meta.url), 'utf8');
  assert.match(entry, /^#!\/usr\/bin\/env node\n/);
  assert.doesNotMatch(entry, /^import\s/m);
});
