import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, spawnService, type ServiceProcess } from './helpers/process.ts';
import { testEnv } from './helpers/service.ts';

// The README promises that its curl walkthrough works as written, and that it leaves nothing
// (API key, private key, certificate) in the folder it starts from: run it and check both.
// It starts in a stand-in for the repository (its scripts/ linked in), so that other test
// files writing to the real checkout at the same time cannot disturb the check.
let dir: string;
let repo: string;
let scratch: string;
let svc: ServiceProcess | undefined;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ecf-readme-'));
  repo = join(dir, 'repo');
  scratch = join(dir, 'tmp');
  await mkdir(repo);
  await mkdir(scratch);
  await symlink(join(ROOT, 'scripts'), join(repo, 'scripts'));
  svc = await spawnService(testEnv(join(dir, 'data'), { DATABASE_URL: 'memory://', SIMULATOR_PROCESSING_MS: '300', DGII_POLL_INTERVAL_MS: '100', QUEUE_POLL_INTERVAL_MS: '50' }));
});
after(async () => {
  if (svc !== undefined) {
    svc.child.kill('SIGTERM');
    await svc.exited;
  }
  await rm(dir, { recursive: true, force: true });
});

async function walkthrough(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it with curl'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block !== undefined, 'the section has a shell block');
  assert.match(block, /^BASE=http:\/\/127\.0\.0\.1:8080$/m);
  return block.replace(/^BASE=.*$/m, `BASE=${svc?.url}`);
}

test('the README\'s curl walkthrough takes a new tenant to an accepted, signed e-CF and leaves the repository folder untouched', async () => {
  const script = await walkthrough();
  const env = { ...process.env, TMPDIR: scratch };
  const { stdout } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: repo, env, timeout: 90_000, maxBuffer: 10 * 1024 * 1024 });
  assert.match(stdout, /"estado": "aceptado"/);
  assert.match(stdout, /"securityCode": "[A-Za-z0-9+/=]{6}"/);
  assert.match(stdout, /"timbreUrl": "https:\/\/ecf\.dgii\.gov\.do\/testecf\/ConsultaTimbre\?/);

  assert.deepEqual(await readdir(repo), ['scripts'], 'the walkthrough wrote files into the folder it started from');
  const [work, ...others] = await readdir(scratch);
  assert.ok(work !== undefined && others.length === 0, 'the walkthrough made one scratch folder with mktemp');
  const written = await readdir(join(scratch, work));
  for (const file of ['register.json', 'key.pem', 'certificado.p12', 'factura.xml']) assert.ok(written.includes(file), file);
  const xml = await readFile(join(scratch, work, 'factura.xml'), 'utf8');
  assert.match(xml, /^<\?xml version="1\.0" encoding="utf-8"\?><ECF>/);
  assert.match(xml, /<Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">[\s\S]*<\/Signature><\/ECF>$/);
});
