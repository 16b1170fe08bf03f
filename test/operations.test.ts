import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const UNIT = new URL('../scripts/ecf.service', import.meta.url);

test('the systemd unit has the hardening and restart settings the operations kit promises', async () => {
  const text = await readFile(UNIT, 'utf8');
  const directives = new Map(text.split('\n').filter((l) => /^[A-Za-z]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const expected: Record<string, string> = {
    Type: 'simple', Restart: 'on-failure', DynamicUser: 'yes', NoNewPrivileges: 'yes', ProtectSystem: 'strict',
    ProtectHome: 'yes', PrivateTmp: 'yes', ReadWritePaths: '/var/lib/ecf-service', EnvironmentFile: '/etc/ecf-service/ecf.env',
    KillSignal: 'SIGTERM', ExecStart: '/usr/bin/node bin/ecf-service.js', ProtectProc: 'invisible', ProcSubset: 'pid',
    SystemCallErrorNumber: 'EPERM',
  };
  for (const [key, value] of Object.entries(expected)) assert.equal(directives.get(key), value, key);
  assert.match(directives.get('Environment') ?? '', /NODE_ENV=production/);
  assert.match(directives.get('Environment') ?? '', /DATA_DIR=\/var\/lib\/ecf-service/);
  const filters = text.split('\n').filter((l) => l.startsWith('SystemCallFilter=')).map((l) => l.slice('SystemCallFilter='.length));
  assert.deepEqual(filters, ['@system-service', '~@privileged @resources']);
});

test('systemd-analyze rates the unit\'s exposure at most 1.5', async () => {
  const { stdout } = await promisify(execFile)('systemd-analyze', ['security', '--offline=true', '--no-pager', UNIT.pathname]);
  const exposure = Number(/Overall exposure level for ecf\.service: ([\d.]+)/.exec(stdout)?.[1]);
  assert.ok(exposure <= 1.5, `exposure ${exposure}`);
});

test('systemd-analyze accepts the unit', async () => {
  const { stderr } = await promisify(execFile)('systemd-analyze', ['verify', UNIT.pathname]);
  // It only complains about what it cannot check here (the install paths do not exist on a build machine).
  for (const line of stderr.split('\n').filter((l) => l.trim() !== '')) {
    assert.match(line, /WorkingDirectory|node|ecf\.env|not executable|No such file/, line);
  }
});
