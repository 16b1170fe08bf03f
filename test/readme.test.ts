import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, spawnService, type ServiceProcess } from './helpers/process.ts';
import { testEnv } from './helpers/service.ts';

// The README promises that its curl walkthrough works as written: run it.
let dir: string;
let svc: ServiceProcess | undefined;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ecf-readme-'));
  await symlink(join(ROOT, 'scripts'), join(dir, 'scripts'));
  svc = await spawnService(testEnv(join(dir, 'data'), { DATABASE_URL: 'memory://', SIMULATOR_PROCESSING_MS: '300', DGII_POLL_INTERVAL_MS: '100', QUEUE_POLL_INTERVAL_MS: '50' }));
});
after(async () => {
  if (svc !== undefined) {
    svc.child.kill('SIGTERM');
    await svc.exited;
  }
  await rm(dir, { recursive: true, force: true });
});

test('the README\'s curl walkthrough takes a new tenant to an accepted, signed e-CF', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it with curl'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block !== undefined, 'the section has a shell block');
  assert.match(block, /^BASE=http:\/\/127\.0\.0\.1:8080$/m);
  const script = block.replace(/^BASE=.*$/m, `BASE=${svc?.url}`);
  const { stdout } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: dir, timeout: 90_000, maxBuffer: 10 * 1024 * 1024 });
  assert.match(stdout, /"estado": "aceptado"/);
  assert.match(stdout, /"securityCode": "[A-Za-z0-9+/=]{6}"/);
  assert.match(stdout, /"timbreUrl": "https:\/\/ecf\.dgii\.gov\.do\/testecf\/ConsultaTimbre\?/);
  const xml = await readFile(join(dir, 'factura.xml'), 'utf8');
  assert.match(xml, /^<\?xml version="1\.0" encoding="utf-8"\?><ECF>/);
  assert.match(xml, /<Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">[\s\S]*<\/Signature><\/ECF>$/);
});
