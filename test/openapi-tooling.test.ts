import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { call } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';

// The OpenAPI document checked with the tools integrators use: @redocly/cli lint and
// openapi-typescript (dev dependencies), whose types must accept a literal body of each example.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const EXAMPLES = join(ROOT, 'scripts', 'examples');

/** Warnings @redocly/cli's recommended rules keep, each explained in docs/api.md. */
const EXPLAINED_WARNINGS = new Set(['info-license', 'no-ambiguous-paths', 'operation-4xx-response', 'no-unused-components']);

let t: TestService;
const dir = mkdtempSync(join(tmpdir(), 'ecf-openapi-tools-'));
let specFile: string;
before(async () => {
  t = await startTestService();
  specFile = join(dir, 'openapi.json');
  writeFileSync(specFile, (await call(t.url, 'GET', '/openapi.json')).text);
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

test('@redocly/cli lint finds no error, and only the explained warnings', async () => {
  const out = join(dir, 'lint.json');
  // lint exits non-zero on errors; the report says which.
  await run(join(BIN, 'redocly'), ['lint', specFile, '--format=json'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => writeFileSync(out, r.stdout),
    (err: { stdout?: string }) => writeFileSync(out, err.stdout ?? ''),
  );
  const report = JSON.parse(readFileSync(out, 'utf8')) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string }[] };
  const errors = report.problems.filter((p) => p.severity === 'error');
  assert.deepEqual(errors.map((p) => `${p.ruleId}: ${p.message}`), []);
  assert.equal(report.totals.errors, 0);
  const unexplained = report.problems.filter((p) => p.severity === 'warning' && !EXPLAINED_WARNINGS.has(p.ruleId));
  assert.deepEqual(unexplained.map((p) => `${p.ruleId}: ${p.message}`), []);
});

test('openapi-typescript types the emit body of each e-CF type: every example compiles, a wrong body does not', async () => {
  await run(join(BIN, 'openapi-typescript'), [specFile, '-o', join(dir, 'api.ts')], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  const lines = ["import type { components } from './api.ts';", 'type S = components[\'schemas\'];', 'type B31 = S[\'EcfBody31\'];', 'type B32 = S[\'EcfBody32\'];'];
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).sort();
  const tipos = new Set<number>();
  for (const file of files) {
    const body = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as { ECF: { Encabezado: { IdDoc: { TipoeCF: number } } } };
    const tipo = body.ECF.Encabezado.IdDoc.TipoeCF;
    tipos.add(tipo);
    lines.push(`export const e${tipo}: S['EcfBody${tipo}'] = ${JSON.stringify(body)};`);
    lines.push(`export const any${tipo}: components['schemas']['EcfBody'] = e${tipo};`);
  }
  assert.deepEqual([...tipos].sort(), [31, 32, 33, 34, 41, 43, 44, 45, 46, 47]);
  // The types are not `any`: these must be rejected (an unused @ts-expect-error fails the build).
  lines.push("// @ts-expect-error Encabezado is an object\nexport const bad1: B31 = { ECF: { Encabezado: 'x', DetallesItems: { Item: [] } } };");
  lines.push('// @ts-expect-error an element that is not in the XSD\nexport const bad2: B31 = { ...e31, ECF: { ...e31.ECF, Inventado: 1 } };');
  lines.push("// @ts-expect-error TipoeCF selects the schema\nexport const bad3: B32 = { ...e32, ECF: { ...e32.ECF, Encabezado: { ...e32.ECF.Encabezado, IdDoc: { ...e32.ECF.Encabezado.IdDoc, TipoeCF: 31 } } } };");
  lines.push("// @ts-expect-error metadata values are strings\nexport const bad4: B31 = { ...e31, metadata: { n: 1 } };");
  // The stored e-CF of a document in detail has the types of the e-CF, not an empty object type.
  lines.push("type StoredEcf = S['DocumentDetail']['document']['ECF'];");
  lines.push('export const stored31: StoredEcf = e31.ECF;');
  lines.push('export const stored32: StoredEcf = e32.ECF;');
  lines.push("// @ts-expect-error Encabezado is an object\nexport const bad5: StoredEcf = { Encabezado: 'x', DetallesItems: { Item: [] } };");
  lines.push("export const tipo: number | string = ({} as StoredEcf).Encabezado.IdDoc.TipoeCF;");
  writeFileSync(join(dir, 'check.ts'), `${lines.join('\n')}\n`);
  const args = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', join(dir, 'check.ts')];
  const compiled = await run(join(BIN, 'tsc'), args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).then(() => '', (err: { stdout?: string }) => err.stdout ?? 'tsc failed');
  assert.equal(compiled, '');
});
