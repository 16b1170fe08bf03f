// The dashboard's documents as an operator asked for them (issue 31): the ERP's referencia and
// metadata (list, detail, search), the buyer's name in the list, a PDF per row in the chosen
// format, the service's own messages in Spanish, dates as dd-mm-aaaa; checked with axe.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { seriousViolations } from './helpers/axe.ts';
import { DESKTOP, heading, launchBrowser, openPage, openSettings, rows, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { makeTestCertificate, newTenantWithCertificate, uploadCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
let browser: Browser;
const pages: WatchedPage[] = [];

before(async () => {
  browser = await launchBrowser();
  t = await startTestService({ env: { ...FAST_PIPELINE } });
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
});

async function open(): Promise<WatchedPage> {
  const w = await openPage(browser, DESKTOP);
  pages.push(w);
  return w;
}

test('the list shows referencia and the buyer\'s name, searches by referencia, and downloads each row\'s PDF in the chosen format; the detail shows referencia and metadata', async () => {
  const a = await newTenantWithCertificate(t.url);
  const headers = { 'x-api-key': a.apiKey };
  const made = [];
  for (const [referencia, metadata] of [['PED-1001', { vendedor: 'Ana', sucursal: 'Santiago' }], ['PED-1002', null]] as const) {
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: { ...ecfFor(a.rnc), referencia, ...(metadata === null ? {} : { metadata }) }, headers });
    assert.equal(res.status, 202, res.text);
    made.push(res.body.data as { internalTrackId: string; encf: string });
  }
  for (const d of made) await waitForEstado(t.url, 'TesteCF', d.internalTrackId, headers, ['aceptado']);
  const [first] = made as [{ internalTrackId: string; encf: string }];

  const w = await open();
  const { page } = w;
  await signIn(page, t.url, a.email, a.password);
  await rows(page, 'documents', 2);
  const cells = await page.$$eval('table[data-list="documents"] tbody tr', (trs) => trs.map((r) => ({
    referencia: r.querySelector('td[data-label="Referencia"]')?.textContent,
    comprador: r.querySelector('td[data-label="Comprador"]')?.textContent,
    emision: r.querySelector('td[data-label="Emisión"]')?.textContent,
  })));
  assert.deepEqual(cells.map((c) => c.referencia), ['PED-1002', 'PED-1001']);
  for (const c of cells) {
    assert.match(c.comprador ?? '', /^Ferretería Ochoa & Asociados SRL \d{9,11}$/);
    assert.match(c.emision ?? '', /^\d\d-\d\d-\d{4}$/, 'dd-mm-aaaa');
  }
  assert.deepEqual(await seriousViolations(page), [], 'no serious or critical axe violation on the list');

  // A PDF per row, in the format chosen above the list.
  await page.getByLabel('Formato del PDF').selectOption('ticket80');
  const direct = await fetch(`${t.url}/TesteCF/documentos-ecf/${first.internalTrackId}/pdf?formato=ticket80`, { headers });
  assert.equal(direct.status, 200);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `PDF de ${first.encf}` }).click()]);
  assert.equal(download.suggestedFilename(), `${a.rnc}${first.encf}.pdf`);
  assert.deepEqual(Buffer.concat(await (await download.createReadStream()).toArray()), Buffer.from(await direct.arrayBuffer()));

  // Search by referencia.
  await page.getByLabel('Referencia (ERP)').fill('PED-1001');
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await rows(page, 'documents', 1);
  assert.match(page.url(), /referencia=PED-1001/);
  assert.equal(await page.locator('table[data-list="documents"] tbody a').first().textContent(), first.encf);

  await page.getByRole('link', { name: first.encf }).click();
  await heading(page, `Documento ${first.encf}`);
  assert.equal(await page.locator('[data-field="referencia"]').textContent(), 'PED-1001');
  const metadata = await page.$$eval('[data-field="metadata"] dt, [data-field="metadata"] dd', (els) => els.map((e) => e.textContent));
  assert.deepEqual(metadata.sort(), ['Ana', 'Santiago', 'sucursal', 'vendedor'].sort());
  assert.deepEqual(await seriousViolations(page), [], 'no serious or critical axe violation on the detail');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('the service\'s own English message about a document is shown in Spanish as "Mensaje DGII"', async () => {
  const a = await newTenant(t.url);
  const headers = { 'x-api-key': a.apiKey };
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers });
  assert.equal(res.status, 202, res.text);
  const doc = await waitForEstado(t.url, 'TesteCF', res.body.data.internalTrackId, headers, ['error']);
  assert.equal(doc.dgiiMessage, 'No valid certificate: upload one with POST /api/certificates');

  const w = await open();
  const { page } = w;
  await signIn(page, t.url, a.email, a.password);
  await page.getByRole('link', { name: doc.encf }).click();
  await heading(page, `Documento ${doc.encf}`);
  assert.equal(await page.locator('[data-field="dgiiMessage"]').textContent(), 'No hay un certificado de firma válido: suba uno en Configuración → Certificado y reenvíe el documento.');
  assert.doesNotMatch(await page.locator('main').textContent() ?? '', /No valid certificate/);
  assert.deepEqual(await seriousViolations(page), []);
  assert.deepEqual(unexpectedProblems(w), []);
});

test('Claves API: the environment and read-only checkboxes sit beside their labels, and an existing key\'s scope is edited in place (PATCH)', async () => {
  const a = await newTenant(t.url);
  const w = await open();
  const { page } = w;
  await signIn(page, t.url, a.email, a.password);
  await openSettings(page, 'Claves API');
  await page.locator('table[data-list="keys"]').waitFor();

  // Each checkbox is a box, not a text field as wide as the form, on its label's line.
  for (const label of ['TesteCF (pruebas)', 'CerteCF (certificación)', 'eCF (producción)', /^Solo lectura/]) {
    const box = page.getByRole('checkbox', { name: label }).first();
    const boxRect = await box.boundingBox();
    const rowRect = await box.locator('xpath=..').boundingBox();
    assert.ok(boxRect !== null && rowRect !== null);
    assert.ok(boxRect.width < 40, `${String(label)}: the checkbox is ${boxRect.width} px wide`);
    assert.ok(rowRect.height < 3 * boxRect.height + 20, `${String(label)}: the label is on the checkbox's line (row ${rowRect.height} px high)`);
  }

  // The registered key acts in every environment (newTenant widened it); narrow it to TesteCF, read-only.
  await page.getByRole('button', { name: /^Cambiar ámbito de la clave/ }).first().click();
  const editor = page.locator('form[data-form="edit-scope"]');
  await editor.waitFor();
  assert.equal(await editor.getByRole('checkbox', { name: 'eCF (producción)' }).isChecked(), true, 'the form starts from the key\'s own scope');
  await editor.getByRole('checkbox', { name: 'CerteCF (certificación)' }).uncheck();
  await editor.getByRole('checkbox', { name: 'eCF (producción)' }).uncheck();
  await editor.getByRole('checkbox', { name: /^Solo lectura/ }).check();
  assert.deepEqual(await seriousViolations(page), [], 'no serious or critical axe violation with the editor open');
  await editor.getByRole('button', { name: 'Guardar ámbito' }).click();
  await page.getByText(/^Ámbito de la clave «.+» actualizado\.$/).waitFor();
  assert.equal(await editor.count(), 0, 'the editor closes');

  const keys = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${a.accessToken}` } });
  assert.equal(keys.body.data.length, 1, 'the registered key alone');
  const key = keys.body.data[0];
  assert.deepEqual([key.environments, key.readOnly], [['TesteCF'], true]);
  // The key now reads only: an emit with it is refused.
  const emit = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
  assert.equal(emit.status, 403, emit.text);
  assert.match(await page.locator('table[data-list="keys"] tbody tr').first().textContent() ?? '', /TesteCF · Solo lectura/);
  assert.deepEqual(unexpectedProblems(w), []);
});

/** dd-MM-yyyy, `days` from today (UTC). */
function dgiiDay(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${String(d.getUTCDate()).padStart(2, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${d.getUTCFullYear()}`;
}

test('a new tenant is guided: certificate, authorised range, first document, each step saying whether it is done', async () => {
  const a = await newTenant(t.url);
  const w = await open();
  const { page } = w;
  await signIn(page, t.url, a.email, a.password);
  const steps = page.locator('[data-section="first-steps"]');
  await steps.waitFor();
  const state = () => steps.locator('li').evaluateAll((lis) => lis.map((li) => [li.getAttribute('data-step'), li.getAttribute('data-done')]));
  assert.deepEqual(await state(), [['certificate', 'false'], ['range', 'false'], ['document', 'false']]);
  assert.equal(await steps.getByRole('link', { name: 'Subir el certificado (.p12)' }).getAttribute('href'), '#/configuracion/certificado');
  assert.equal(await steps.getByRole('link', { name: 'Registrar una secuencia' }).getAttribute('href'), '#/secuencias');
  assert.deepEqual(await seriousViolations(page), []);

  const uploaded = await uploadCertificate(t.url, a.accessToken, makeTestCertificate(a.rnc));
  assert.equal(uploaded.status, 201, uploaded.text);
  const range = await call(t.url, 'POST', '/TesteCF/secuencias', { json: { tipo: 31, desde: 'E310000000001', hasta: 'E310000000100', fechaVencimiento: (ecfFor(a.rnc).ECF as { Encabezado: { IdDoc: { FechaVencimientoSecuencia: string } } }).Encabezado.IdDoc.FechaVencimientoSecuencia }, headers: { 'x-api-key': a.apiKey } });
  assert.equal(range.status, 201, range.text);
  await page.reload();
  await steps.waitFor();
  assert.deepEqual(await state(), [['certificate', 'true'], ['range', 'true'], ['document', 'false']]);

  // Once a document exists the steps are gone.
  const sent = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
  assert.equal(sent.status, 202, sent.text);
  await page.reload();
  await rows(page, 'documents', 1);
  assert.equal(await steps.count(), 0);
  assert.deepEqual(unexpectedProblems(w), []);
});

test('a range expiring within SEQUENCE_EXPIRY_WARNING_DAYS is flagged; the acceptance rate says what it counts', async () => {
  const a = await newTenant(t.url);
  const headers = { 'x-api-key': a.apiKey };
  for (const [desde, hasta, vence] of [['E310000000001', 'E310000000010', dgiiDay(10)], ['E310000000011', 'E310000000020', dgiiDay(400)]] as const) {
    const res = await call(t.url, 'POST', '/TesteCF/secuencias', { json: { tipo: Number(desde.slice(1, 3)), desde, hasta, fechaVencimiento: vence }, headers });
    assert.equal(res.status, 201, res.text);
  }
  const w = await open();
  const { page } = w;
  await signIn(page, t.url, a.email, a.password);
  await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Secuencias' }).click();
  await rows(page, 'ranges', 2);
  const flagged = await page.$$eval('table[data-list="ranges"] tbody tr', (trs) => trs.map((r) => [r.querySelector('.mono')?.textContent, r.querySelector('[data-field="expiring"] .badge')?.textContent ?? null]));
  const byRange = Object.fromEntries(flagged);
  assert.match(byRange['E310000000001 – E310000000010'] ?? '', /^Vence en (9|10|11) días$/);
  assert.equal(byRange['E310000000011 – E310000000020'], null, 'a range expiring in 400 days is not flagged');
  assert.deepEqual(await seriousViolations(page), []);

  await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Resumen' }).click();
  const basis = page.locator('[data-field="acceptance-basis"]').first();
  await basis.waitFor();
  assert.match(await basis.textContent() ?? '', /^Aceptados y aceptados condicionales entre los documentos que la DGII ya juzgó \(aceptados, condicionales y rechazados\); no cuenta los que están en proceso ni en error\.$/);
  assert.deepEqual(unexpectedProblems(w), []);
});

test('the certificate page names an expired certificate\'s date as dd-mm-aaaa', async () => {
  const a = await newTenant(t.url);
  const expired = makeTestCertificate(a.rnc, { days: -1 });
  const w = await open();
  const { page } = w;
  await signIn(page, t.url, a.email, a.password);
  await openSettings(page, 'Certificado');
  await page.getByLabel('Archivo (.p12 o .pfx)').setInputFiles({ name: 'vencido.p12', mimeType: 'application/x-pkcs12', buffer: expired.p12 });
  await page.getByLabel('Contraseña del archivo').fill(expired.password);
  await page.getByRole('button', { name: 'Subir certificado' }).click();
  const message = page.getByText(/el certificado venció el/);
  await message.waitFor();
  assert.match(await message.textContent() ?? '', /el certificado venció el \d\d-\d\d-\d{4}\./);
  assert.deepEqual(unexpectedProblems(w, [422]), []);
});
