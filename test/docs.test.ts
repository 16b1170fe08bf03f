import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import * as crypto from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { VARIABLES } from '../src/config.ts';
import { signatureHeader } from '../src/webhooks/settings.ts';
import { signatureHeaders } from '../src/webhooks/signing.ts';
import { CONFIG_DOC, configTable, withConfigTable } from '../scripts/update-readme-config.ts';
import { ROOT } from './helpers/process.ts';
import { headingSlugs, markdownLinks } from './helpers/markdown.ts';

const DOCS = join(ROOT, 'docs');
const PAGES = [join(ROOT, 'README.md'), ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f))];
const read = (file: string) => readFileSync(file, 'utf8');

test('every relative link of the README and docs/ reaches a file, and its #fragment a heading there', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    for (const { target, line } of markdownLinks(read(page))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: are not ours to check
      checked += 1;
      const [path = '', fragment] = target.split('#', 2);
      const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
      const where = `${relative(ROOT, page)}:${line} → ${target}`;
      if (!existsSync(file)) { broken.push(`${where} (no such file)`); continue; }
      if (fragment === undefined) continue;
      if (statSync(file).isDirectory() || !file.endsWith('.md')) { broken.push(`${where} (a fragment into a non-Markdown file)`); continue; }
      if (!headingSlugs(read(file)).has(fragment)) broken.push(`${where} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked > 50, `only ${checked} links found: is the link reader broken?`);
});

test('the link reader finds links outside code and GitHub\'s heading anchors', () => {
  const text = '# Sending to DGII: `TAX_AUTHORITY`\n## Café, 2 ×\n## Café, 2 ×\n```sh\n# not a heading [x](nowhere.md)\n```\nSee [a](api.md#x) and `[b](code.md)`, <https://x.y>.\n';
  assert.deepEqual([...headingSlugs(text)], ['sending-to-dgii-tax_authority', 'café-2-', 'café-2--1']);
  assert.deepEqual(markdownLinks(text), [{ target: 'api.md#x', line: 7 }]);
});

test('the README is a first page: short, with the two commands first and the Dependencies table', () => {
  const readme = read(join(ROOT, 'README.md'));
  assert.ok(readme.split('\n').length <= 250, `README.md has ${readme.split('\n').length} lines`);
  const head = readme.split('\n').slice(0, 12).join('\n');
  assert.match(head, /npm ci && npm start/);
  assert.match(head, /npm test/);
  assert.match(readme, /^## Dependencies\n\n\| Package \| Kind \|/m);
  for (const page of PAGES.filter((p) => p.startsWith(DOCS))) assert.ok(readme.includes(`](docs/${relative(DOCS, page)})`), `the README's table of contents lists ${relative(ROOT, page)}`);
});

test('docs/configuration.md holds the table scripts/update-readme-config.ts writes today', () => {
  const page = read(CONFIG_DOC);
  assert.equal(page, withConfigTable(page), 'run npx tsx scripts/update-readme-config.ts');
  assert.ok(page.includes(configTable()));
  const missing = VARIABLES.filter((v) => !page.includes(`| \`${v.name}\` |`)).map((v) => v.name);
  assert.deepEqual(missing, []);
});

test('the signature check docs/webhooks.md shows accepts the service\'s signature and nothing else, during a rotation overlap too', () => {
  const snippet = /```js\n([\s\S]*?)```/.exec(read(join(DOCS, 'webhooks.md')))?.[1];
  assert.ok(snippet !== undefined, 'docs/webhooks.md has a js block');
  // The snippet is two statements over `crypto`, `secret`, `rawBody` and `header`; run it as written.
  const check = new Function('crypto', 'secret', 'rawBody', 'header', `${snippet}\nreturn ok;`) as (c: typeof crypto, s: string, b: Buffer, h: string) => boolean;
  const secret = 'whsec-docs-test-0123456789';
  const body = '{"event":"webhook.test","message":"¡hola!"}';
  const header = signatureHeader(secret, body);
  assert.equal(check(crypto, secret, Buffer.from(body), header), true);
  assert.equal(check(crypto, secret, Buffer.from(body.replace('hola', 'hole')), header), false);
  assert.equal(check(crypto, 'another-secret-0123456789', Buffer.from(body), header), false);
  assert.equal(check(crypto, secret, Buffer.from(body), header.slice(0, -1)), false);
  assert.equal(header, `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);

  // During an overlap the header the service sends holds the new secret's value and the previous
  // one's: a receiver holding either secret accepts, one holding neither does not.
  const previous = 'whsec-docs-previous-0123456789';
  const overlap = signatureHeaders([secret, previous], 'msg_1', new Date(), body)['x-ecf-signature'] as string;
  assert.match(overlap, /^sha256=[0-9a-f]{64}, sha256=[0-9a-f]{64}$/);
  assert.equal(check(crypto, secret, Buffer.from(body), overlap), true);
  assert.equal(check(crypto, previous, Buffer.from(body), overlap), true);
  assert.equal(check(crypto, 'another-secret-0123456789', Buffer.from(body), overlap), false);
  assert.equal(check(crypto, previous, Buffer.from(body.replace('hola', 'hole')), overlap), false);
});

// The specification and its companion used to live outside the repository; decisions.md may be
// named only as the page in docs/ (the path docs/decisions.md, or a link or its label in a docs page).
const STRAY = /interface\.md|\.\.\/shared|shared\/spec|(?<!docs\/|\]\(|\[)decisions\.md/;

test('nothing in the repository points at the specification\'s old files outside it', () => {
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // Installed packages (the benchmark peers' own node_modules under scripts/bench) are not ours.
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (/\.(ts|md|json|sh|service|sql)$/.test(entry.name) && path !== join(ROOT, 'test', 'docs.test.ts')) {
        const text = read(path);
        const stray = STRAY.exec(text);
        if (stray !== null) offenders.push(`${relative(ROOT, path)}: ${stray[0]}`);
      }
    }
  };
  for (const top of ['README.md', 'docs', 'src', 'test', 'scripts', 'sql', 'package.json']) {
    const path = join(ROOT, top);
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) walk(path);
    else if (STRAY.test(read(path))) offenders.push(top);
  }
  assert.deepEqual(offenders, []);
});
