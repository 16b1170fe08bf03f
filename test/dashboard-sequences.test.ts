// The Secuencias page and resubmission in a real browser: a document emitted before the
// certificate is uploaded ends in error and is resent from its page; a range is registered and
// listed, an overlapping one shows the API's 409 and a malformed one its field errors; the
// numbers left in a range are annulled and the annulment is followed until DGII accepts it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { seriousViolations } from './helpers/axe.ts';
import { makeTestCertificate, uploadCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant } from './helpers/http.ts';
import { heading, launchBrowser, openPage, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
let browser: Browser;
let a: Awaited<ReturnType<typeof newTenant>>;
let failedId = '';
const pages: WatchedPage[] = [];

before(async () => {
  browser = await launchBrowser();
  t = await startTestService({ env: { ...FAST_PIPELINE, RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  a = await newTenant(t.url);
  const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
  assert.equal(emitted.status, 202, emitted.text);
  failedId = emitted.body.data.internalTrackId as string;
  await waitForEstado(t.url, 'TesteCF', failedId, { 'x-api-key': a.apiKey }, ['error']);
  assert.equal((await uploadCertificate(t.url, a.accessToken, makeTestCertificate(a.rnc))).status, 201);
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
});

async function open(): Promise<WatchedPage> {
  const w = await openPage(browser);
  pages.push(w);
  await signIn(w.page, t.url, a.email, a.password);
  return w;
}

test('a document in error is resent from its page with its eNCF and reaches aceptado', async () => {
  const w = await open();
  const { page } = w;
  await page.goto(`${t.url}/dashboard/#/documentos/${failedId}`);
  await heading(page, /^Documento E31/);
  const section = page.locator('[data-section="resubmit"]');
  await section.waitFor();
  await section.getByRole('button', { name: 'Reenviar' }).click();
  await page.locator('.badge[data-value="aceptado"]').first().waitFor({ timeout: 20_000 });
  assert.equal(await section.count(), 0, 'nothing to resend once accepted');
  const history = await page.$$eval('table[data-list="history"] .badge', (b) => b.map((x) => x.getAttribute('data-value')));
  assert.deepEqual(history.slice(0, 2), ['recibido', 'error']);
  assert.deepEqual(history.slice(-3), ['recibido', 'en_proceso', 'aceptado']);
  const doc = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${failedId}`, { headers: { 'x-api-key': a.apiKey } })).body.data;
  assert.equal(doc.estado, 'aceptado');
  assert.equal(doc.encf, 'E310000000001', 'the same number');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('Secuencias registers a range and lists it, explains an overlapping or malformed one, and annuls the numbers left', async () => {
  const w = await open();
  const { page } = w;
  await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Secuencias' }).click();
  await heading(page, 'Secuencias');
  await page.getByText('No hay secuencias registradas en este ambiente.').waitFor();

  const form = page.locator('form[aria-labelledby="seq-new"]');
  const register = async (desde: string, hasta: string, vence: string | null): Promise<void> => {
    await form.getByLabel('Tipo').selectOption('31');
    await form.getByLabel('Desde').fill(desde);
    await form.getByLabel('Hasta').fill(hasta);
    if (vence !== null) await form.getByLabel('Fecha de vencimiento').fill(vence);
    await form.getByRole('button', { name: 'Registrar secuencia' }).click();
  };
  await register('E310000000101', 'E310000000110', '2030-12-31');
  await page.getByText('Secuencia E310000000101–E310000000110 registrada: 10 números disponibles.').waitFor();
  await rows(page, 'ranges', 1);
  const cells = await page.$$eval('table[data-list="ranges"] tbody td', (tds) => tds.map((td) => td.textContent?.trim()));
  assert.deepEqual(cells.slice(1, 4), ['E310000000101 – E310000000110', 'E310000000101', '10']);
  assert.equal(await page.locator('table[data-list="ranges"] .badge').getAttribute('data-value'), 'activa');
  assert.match(cells[4] ?? '', /2030/);
  const listed = (await call(t.url, 'GET', '/TesteCF/secuencias', { headers: { 'x-api-key': a.apiKey } })).body.data;
  assert.deepEqual([listed[0].desde, listed[0].hasta, listed[0].fechaVencimiento], ['E310000000101', 'E310000000110', '31-12-2030']);

  await register('E310000000105', 'E310000000120', '2030-12-31');
  const conflict = page.locator('[role="alert"][data-code="CONFLICT"]');
  await conflict.waitFor();
  assert.match(await conflict.textContent() ?? '', /overlap|superpone|E310000000101/i);
  await register('E320000000001', 'E310000000120', '');
  const invalid = page.locator('[role="alert"][data-code="VALIDATION_ERROR"]');
  await invalid.waitFor();
  assert.ok((await invalid.locator('li strong').allTextContents()).includes('Desde'), 'the detail is under the field\'s name');
  assert.match(await invalid.locator('li[data-path="desde"]').textContent() ?? '', /debe empezar por E31/);
  assert.match(await invalid.locator('li[data-path="fechaVencimiento"]').textContent() ?? '', /es obligatoria para el tipo 31/);
  await rows(page, 'ranges', 1);
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'sequences');

  // The numbers the range has left go to DGII in one ANECF.
  await page.getByRole('button', { name: 'Anular disponibles de E310000000101–E310000000110' }).click();
  const annul = page.locator('form[aria-labelledby="seq-annul"]');
  assert.equal(await annul.getByLabel('Desde').inputValue(), 'E310000000101');
  await annul.getByRole('button', { name: 'Anular' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Anular números' }).click();
  await page.getByText('Anulación de 10 números (E310000000101–E310000000110) enviada a la DGII.').waitFor();
  await page.locator('table[data-list="annulments"] .badge[data-value="aceptado"]').waitFor({ timeout: 20_000 });
  await page.locator('table[data-list="ranges"] .badge[data-value="anulada"]').waitFor({ timeout: 10_000 });

  // A span holding an accepted document (the one resent above) cannot be annulled: the API's 409 is shown.
  await waitForEstado(t.url, 'TesteCF', failedId, { 'x-api-key': a.apiKey }, ['aceptado']);
  await annul.getByLabel('Tipo').selectOption('31');
  await annul.getByLabel('Desde').fill('E310000000001');
  await annul.getByLabel('Hasta').fill('E310000000001');
  await annul.getByRole('button', { name: 'Anular' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Anular números' }).click();
  const refused = page.locator('form[aria-labelledby="seq-annul"] ~ [aria-live] [role="alert"]');
  await refused.waitFor();
  assert.equal(await refused.getAttribute('data-code'), 'CONFLICT');
  assert.match(await refused.textContent() ?? '', /E310000000001/, 'the API names the document in the way');
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'sequences-annulled');
  assert.deepEqual(unexpectedProblems(w, [409, 422]), []);
});
