// The shared arithmetic (src/ecf/totals.ts) and check digits (src/ecf/tax-id.ts): the dashboard's
// invoice form computes with them, and the validation judges with them, so a document whose
// amounts come from documentTotals passes the server's rules, and one cent off does not.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileDashboard, SHARED_MODULES } from '../scripts/dashboard-compiler.ts';
import { test } from 'node:test';
import { dec, formatDec, type Dec } from '../src/ecf/decimal.ts';
import { checkTaxId, isValidTaxId } from '../src/ecf/tax-id.ts';
import { documentTotals, itbisOf, lineMonto, taxableBase, type Indicator } from '../src/ecf/totals.ts';
import { validateEcf } from '../src/ecf/validation/index.ts';
import { sampleEcf } from './fixtures/ecf.ts';

const f = (d: Dec | null): string | null => (d === null ? null : formatDec(d));

test('tax ids with DGII check digits are told from ones without', () => {
  for (const rnc of ['131880681', '101672919', '401007551']) assert.deepEqual(checkTaxId(rnc), { kind: 'rnc', valid: true }, rnc);
  assert.deepEqual(checkTaxId('131880682'), { kind: 'rnc', valid: false, expected: 1 });
  // r = 0 gives 2, r = 1 gives 1 (DGII's two special cases).
  assert.equal(isValidTaxId('000000002'), true);
  assert.equal(isValidTaxId('000000010'), false);
  assert.deepEqual(checkTaxId('00113918205'), { kind: 'cedula', valid: true });
  assert.deepEqual(checkTaxId('00113918204'), { kind: 'cedula', valid: false, expected: 5 });
  assert.deepEqual(checkTaxId('40212345670').kind, 'cedula');
  for (const bad of ['', '13188068', '1318806811', '131-88068-1', '1318806a1']) assert.deepEqual(checkTaxId(bad), { kind: 'format', valid: false }, bad);
});

test('line amounts, bases and ITBIS round half up to cents', () => {
  assert.equal(formatDec(lineMonto(dec('3'), dec('245.755'))), '737.27');
  assert.equal(formatDec(lineMonto(dec('1'), dec('3500'), dec('350'))), '3150.00');
  assert.equal(formatDec(itbisOf(dec('0.25'), '18')), '0.05');
  assert.equal(formatDec(itbisOf(dec('0.02'), '18')), '0.00');
  assert.equal(formatDec(taxableBase(dec('118.00'), '18', true)), '100.00');
  assert.equal(formatDec(taxableBase(dec('118.00'), '18', false)), '118.00');
});

test('the totals documentTotals computes are the ones the validation accepts, and a cent off is refused', () => {
  const lines: { qty: string; price: string; discount?: string; indicator: Indicator }[] = [
    { qty: '3', price: '245.76', indicator: 1 },
    { qty: '2.5', price: '99.99', discount: '10.00', indicator: 1 },
    { qty: '1', price: '1000.00', indicator: 2 },
    { qty: '4', price: '12.35', indicator: 4 },
  ];
  const montos = lines.map((l) => lineMonto(dec(l.qty), dec(l.price), l.discount === undefined ? undefined : dec(l.discount)));
  const t = documentTotals(lines.map((l, i) => ({ indicator: l.indicator, amount: montos[i] as Dec })));
  assert.deepEqual(t.byRate.map((r) => [r.indicator, formatDec(r.base), formatDec(r.itbis)]), [[1, '977.26', '175.91'], [2, '1000.00', '160.00']]);
  assert.deepEqual([f(t.gravadoTotal), f(t.totalItbis), f(t.exento), f(t.total)], ['1977.26', '335.91', '49.40', '2362.57']);

  const totales: Record<string, unknown> = {
    MontoGravadoTotal: f(t.gravadoTotal), MontoGravadoI1: '977.26', MontoGravadoI2: '1000.00', MontoExento: f(t.exento),
    ITBIS1: 18, ITBIS2: 16, TotalITBIS: f(t.totalItbis), TotalITBIS1: '175.91', TotalITBIS2: '160.00', MontoTotal: f(t.total),
  };
  const items = lines.map((l, i) => ({
    NumeroLinea: i + 1, IndicadorFacturacion: l.indicator, NombreItem: `Artículo ${i + 1}`, IndicadorBienoServicio: 1,
    CantidadItem: l.qty, PrecioUnitarioItem: l.price, MontoItem: formatDec(montos[i] as Dec),
    ...(l.discount === undefined ? {} : { DescuentoMonto: l.discount, TablaSubDescuento: { SubDescuento: [{ TipoSubDescuento: '$', MontoSubDescuento: l.discount }] } }),
  }));
  const good = sampleEcf(31, { Encabezado: { IdDoc: { TablaFormasPago: undefined }, Totales: undefined }, DetallesItems: { Item: items } });
  (good.ECF.Encabezado as Record<string, unknown>).Totales = totales;
  const ok = validateEcf(good);
  assert.equal(ok.ok, true, JSON.stringify(ok));
  const off = structuredClone(good);
  ((off.ECF.Encabezado as Record<string, unknown>).Totales as Record<string, unknown>).TotalITBIS1 = '175.75';
  const refused = validateEcf(off);
  assert.equal(refused.ok, false);
  assert.ok(!refused.ok && refused.errors.some((e) => e.path === 'ECF.Encabezado.Totales.TotalITBIS1'), JSON.stringify(refused));
});

test('the dashboard build serves the shared modules beside the page\'s scripts and refuses an import it does not serve', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dash-shared-'));
  try {
    writeFileSync(join(dir, 'page.ts'), "import { lineMonto } from '../../ecf/totals.ts';\nimport { dec, formatDec } from '../../ecf/decimal.ts';\nexport const m = formatDec(lineMonto(dec('3'), dec('245.755')));\n");
    const built = await compileDashboard(pathToFileURL(`${dir}/`), SHARED_MODULES);
    assert.deepEqual([...built.keys()].sort(), ['decimal.js', 'ecf-types.js', 'page.js', 'tax-id.js', 'totals.js']);
    assert.match(built.get('page.js') ?? '', /from "\.\/totals\.js"/);
    // The built files run as a browser would load them: from their own folder, by relative URL.
    const out = mkdtempSync(join(tmpdir(), 'dash-built-'));
    for (const [name, text] of built) writeFileSync(join(out, name.replace(/\.js$/, '.mjs')), text.replace(/\.js"/g, '.mjs"'));
    const page = await import(pathToFileURL(join(out, 'page.mjs')).href) as { m: string };
    assert.equal(page.m, '737.27');
    rmSync(out, { recursive: true });

    writeFileSync(join(dir, 'page.ts'), "import { validateEcf } from '../../ecf/validation/index.ts';\nexport const v = validateEcf;\n");
    await assert.rejects(compileDashboard(pathToFileURL(`${dir}/`), SHARED_MODULES), /page\.js imports \.\.\/\.\.\/ecf\/validation\/index\.js, which the dashboard does not serve/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
