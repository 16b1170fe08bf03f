// The dashboard as files: how the service serves them and proves its built scripts current (headers, ETag,
// 404s, OpenAPI), and the page's Spanish tables kept equal to the service's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_DIR, DashboardAssets, loadAssets } from '../src/dashboard/assets.ts';
import { ENVIRONMENTS as CLIENT_ENVIRONMENTS, ESTADOS as CLIENT_ESTADOS, EVENTS, DELIVERY_STATUSES, TIPOS } from '../src/dashboard/client/labels.ts';
import { ENVIRONMENTS } from '../src/environments.ts';
import { ESTADOS } from '../src/ecf/states.ts';
import { ECF_TIPOS } from '../src/ecf/validation/index.ts';
import { EVENT_KINDS } from '../src/events/outbox.ts';
import { DELIVERY_STATUSES as SERVER_DELIVERY_STATUSES } from '../src/webhooks/queries.ts';
import { createLogger } from '../src/log.ts';
import { call } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { compileDashboard } from '../scripts/dashboard-compiler.ts';

let t: TestService;
before(async () => {
  t = await startTestService();
});
after(() => t.close());

describe('serving', () => {
  test('/dashboard redirects to /dashboard/, which is the page with a strict CSP and no inline code', async () => {
    const bare = await fetch(`${t.url}/dashboard`, { redirect: 'manual' });
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.get('location'), '/dashboard/');
    const res = await fetch(`${t.url}/dashboard/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data:", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"]) {
      assert.ok(csp.split('; ').includes(directive), `CSP has ${directive}: ${csp}`);
    }
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const html = await res.text();
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/i, 'every script is a file');
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, 'no inline styles or handlers');
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//i, 'nothing from another origin');
  });

  test('scripts are plain JavaScript, every import resolves, and assets revalidate by ETag', async () => {
    const seen = new Set<string>();
    const queue = ['main.js'];
    while (queue.length > 0) {
      const name = queue.pop() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      const res = await fetch(`${t.url}/dashboard/${name}`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.ok(res.headers.get('content-security-policy'));
      const js = await res.text();
      assert.doesNotMatch(js, /\binterface\s+\w+\s*\{|:\s*HTMLElement\b|\.ts["']/, `${name} is plain JavaScript`);
      for (const m of js.matchAll(/from\s+"\.\/([\w-]+\.js)"/g)) queue.push(m[1] as string);
    }
    assert.ok(seen.size >= 10, `main.js reaches the whole page (${[...seen].join(', ')})`);

    const css = await fetch(`${t.url}/dashboard/styles.css`);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(css.headers.get('cache-control'), 'no-cache');
    const etag = css.headers.get('etag') ?? '';
    assert.match(etag, /^"[\w-]{27}"$/);
    const again = await fetch(`${t.url}/dashboard/styles.css`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    assert.equal(again.headers.get('x-frame-options'), 'DENY');
    const changed = await fetch(`${t.url}/dashboard/styles.css`, { headers: { 'if-none-match': '"other"' } });
    assert.equal(changed.status, 200);
  });

  test('unknown files are 404 in the error envelope, still with the page\'s headers; sources are not served', async () => {
    for (const name of ['nope.js', 'main.ts', 'index.html', '..%2Fapp.ts', 'labels.ts']) {
      const res = await fetch(`${t.url}/dashboard/${name}`);
      assert.equal(res.status, 404, name);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
      assert.ok(res.headers.get('content-security-policy'), name);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
    }
  });

  test('the dashboard routes are documented in /openapi.json under the Dashboard tag', async () => {
    const doc = (await call(t.url, 'GET', '/openapi.json')).body;
    assert.deepEqual(doc.paths['/dashboard'].get.tags, ['Dashboard']);
    assert.deepEqual(doc.paths['/dashboard/{asset}'].get.tags, ['Dashboard']);
    assert.deepEqual(doc.paths['/dashboard'].get.security, []);
    assert.ok(doc.paths['/dashboard'].get.responses['200'].content['text/html']);
    assert.deepEqual(doc.paths['/dashboard/config.json'].get.tags, ['Dashboard']);
    assert.deepEqual(doc.paths['/dashboard/config.json'].get.security, []);
  });

  test('config.json tells a signed-out page whether registration is open and the sequence expiry warning, and nothing else', async () => {
    const res = await fetch(`${t.url}/dashboard/config.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.ok(res.headers.get('content-security-policy'));
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.deepEqual(await res.json(), { success: true, data: { registrationEnabled: true, sequenceExpiryWarningDays: 30 } });
  });
});

describe('building', () => {
  test('the served scripts are what the client\'s TypeScript compiles to, file for file', async () => {
    const expected = await compileDashboard();
    const present = (await readdir(BUILT_DIR)).sort();
    assert.deepEqual(present, [...expected.keys()].sort(), 'src/dashboard/built/ has one script per source: run `npm run build:dashboard`');
    for (const [name, text] of expected) {
      assert.equal(await readFile(new URL(name, BUILT_DIR), 'utf8'), text, `src/dashboard/built/${name} is stale: run \`npm run build:dashboard\``);
    }
  });

  test('TypeScript becomes browser modules with .js imports; declaration files are skipped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ecf-dashboard-'));
    try {
      await writeFile(join(dir, 'a.ts'), "import { b } from './b.ts';\nimport type { T } from './t.ts';\nexport const a: number = b + 1;\n");
      await writeFile(join(dir, 'b.ts'), 'export const b = 1 as const;\n');
      await writeFile(join(dir, 'types.d.ts'), 'export type T = 1;\n');
      const built = await compileDashboard(pathToFileURL(`${dir}/`));
      assert.deepEqual([...built.keys()], ['a.js', 'b.js']);
      const a = built.get('a.js') ?? '';
      assert.match(a, /import \{ b \} from "\.\/b\.js";/);
      assert.doesNotMatch(a, /t\.ts|: number/);
      // The module really runs as JavaScript.
      const b = await import(`data:text/javascript,${encodeURIComponent(built.get('b.js') ?? '')}`) as { b: number };
      assert.equal(b.b, 1);
      await writeFile(join(dir, 'broken.ts'), 'export const x = (;\n');
      await assert.rejects(compileDashboard(pathToFileURL(`${dir}/`)), /broken\.ts/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('files are served as they are from their folders; other kinds are not served', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ecf-dashboard-'));
    try {
      await mkdir(join(dir, 'client'));
      await mkdir(join(dir, 'built'));
      await writeFile(join(dir, 'client', 'site.css'), 'body { margin: 0 }\n');
      await writeFile(join(dir, 'client', 'a.ts'), 'export const a: number = 1;\n');
      await writeFile(join(dir, 'client', 'notes.md'), '# not served\n');
      await writeFile(join(dir, 'built', 'a.js'), 'export const a = 1;\n');
      const dirs = [pathToFileURL(`${dir}/client/`), pathToFileURL(`${dir}/built/`)];
      const assets = await loadAssets(dirs);
      assert.deepEqual([...assets.keys()].sort(), ['a.js', 'site.css']);
      assert.equal(assets.get('a.js')?.contentType, 'text/javascript; charset=utf-8');
      assert.equal(assets.get('a.js')?.data.toString('utf8'), 'export const a = 1;\n');
      assert.equal(assets.get('site.css')?.data.toString('utf8'), 'body { margin: 0 }\n');
      await writeFile(join(dir, 'client', 'a.js'), 'export const a = 2;\n');
      await assert.rejects(loadAssets(dirs), /a\.js is in two folders/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a folder that cannot be read is reported, and a fixed one is picked up by the next request', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ecf-dashboard-'));
    try {
      const lines: string[] = [];
      const assets = new DashboardAssets(createLogger('error', (l) => lines.push(l)), [pathToFileURL(`${dir}/built/`)]);
      await assert.rejects(assets.get('main.js'), /ENOENT/);
      assert.match(lines.join(''), /dashboard assets failed to load/);
      await mkdir(join(dir, 'built'));
      await writeFile(join(dir, 'built', 'main.js'), 'export const x = 1;\n');
      assert.match((await assets.get('main.js'))?.data.toString('utf8') ?? '', /export const x = 1;/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the page\'s tables', () => {
  test('environments, estados, e-CF types, events and delivery states match the service\'s', () => {
    assert.deepEqual([...CLIENT_ENVIRONMENTS], [...ENVIRONMENTS]);
    assert.deepEqual(Object.keys(CLIENT_ESTADOS), Object.keys(ESTADOS));
    for (const [name, e] of Object.entries(ESTADOS)) assert.equal(CLIENT_ESTADOS[name as keyof typeof CLIENT_ESTADOS].final, e.final, name);
    assert.deepEqual(Object.keys(TIPOS).map(Number), [...ECF_TIPOS]);
    assert.deepEqual(Object.keys(EVENTS).sort(), [...EVENT_KINDS].sort());
    assert.deepEqual(Object.keys(DELIVERY_STATUSES).sort(), [...SERVER_DELIVERY_STATUSES].sort());
  });
});
