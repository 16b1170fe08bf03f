// The dashboard's documents in a real browser: filters, page size, keyset paging forward
// and back, environments, local dates; and every page at phone width (360 px).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call } from './helpers/http.ts';
import { DESKTOP, heading, horizontalOverflow, launchBrowser, listedEstados, openPage, PHONE, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { startReceiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestService;
let browser: Browser;
const pages: WatchedPage[] = [];
const closers: (() => Promise<void>)[] = [];

before(async () => {
  // The browser first: without one the file fails at once instead of leaving a service running.
  browser = await launchBrowser();
  t = await startTestService({ env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  for (const close of closers) await close();
  await browser?.close();
  await t?.close();
});

async function open(viewport: { width: number; height: number } = DESKTOP): Promise<WatchedPage> {
  const w = await openPage(browser, viewport);
  pages.push(w);
  return w;
}

async function emit(apiKey: string, rnc: string, tipo: 31 | 32 = 31, env = 'TesteCF'): Promise<{ internalTrackId: string; encf: string }> {
  const res = await call(t.url, 'POST', `/${env}/documentos-ecf`, { json: ecfFor(rnc, tipo), headers: { 'x-api-key': apiKey } });
  assert.equal(res.status, 202, res.text);
  return res.body.data;
}

describe('documents', () => {
  test('filters by estado and tipo, and pages forward and back through keyset cursors', async () => {
    const a = await newTenantWithCertificate(t.url);
    const made: string[] = [];
    for (let i = 0; i < 12; i++) made.push((await emit(a.apiKey, a.rnc, i < 9 ? 31 : 32)).encf);
    for (const encf of made) await waitFor(async () => (await call(t.url, 'GET', `/TesteCF/documentos-ecf?encf=${encf}&estado=aceptado`, { headers: { 'x-api-key': a.apiKey } })).body?.data?.items?.length === 1, 20_000, `${encf} aceptado`);
    // Another environment's document is not listed in TesteCF.
    await emit(a.apiKey, a.rnc, 31, 'CerteCF');

    const w = await open();
    const { page } = w;
    await signIn(page, t.url, a.email, a.password);
    await page.locator('table[data-list="documents"] tbody tr').nth(11).waitFor();
    const newestFirst = [...made].reverse();
    assert.deepEqual(Object.keys(await listedEstados(page)), newestFirst, 'newest first, 25 a page by default');
    await page.getByLabel('Por página').selectOption('10');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await rows(page, 'documents', 10);
    assert.deepEqual(Object.keys(await listedEstados(page)), newestFirst.slice(0, 10));
    assert.equal(await page.locator('.page-number').textContent(), 'Página 1');
    assert.equal(await page.getByRole('button', { name: '← Anterior' }).isDisabled(), true);

    await page.getByRole('button', { name: 'Siguiente →' }).click();
    await page.locator('.page-number', { hasText: 'Página 2' }).waitFor();
    assert.deepEqual(Object.keys(await listedEstados(page)), newestFirst.slice(10));
    assert.equal(await page.getByRole('button', { name: 'Siguiente →' }).isDisabled(), true);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-focus-key') ?? document.activeElement?.className), 'results', 'focus stays in the list when Siguiente turns disabled');
    await screenshot(page, 'documents-page-2');
    await page.getByRole('button', { name: '← Anterior' }).click();
    await page.locator('.page-number', { hasText: 'Página 1' }).waitFor();
    assert.deepEqual(Object.keys(await listedEstados(page)), newestFirst.slice(0, 10));

    // Back from a document returns to the list as it was.
    await page.getByRole('link', { name: newestFirst[3] as string }).click();
    await heading(page, `Documento ${newestFirst[3]}`);
    await page.getByRole('link', { name: '← Volver a documentos' }).click();
    await heading(page, 'Documentos');
    await page.locator('table[data-list="documents"]').waitFor();

    await page.getByLabel('Tipo').selectOption('32');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await rows(page, 'documents', 3);
    assert.deepEqual(Object.keys(await listedEstados(page)), newestFirst.slice(0, 3));
    await page.getByLabel('Estado').selectOption('rechazado');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('No hay documentos con estos filtros en este ambiente.').waitFor();
    await screenshot(page, 'documents-filtered-empty');

    // Dates go to the API as yyyy-MM-dd from the browser's date inputs.
    await page.getByRole('button', { name: 'Limpiar' }).click();
    await rows(page, 'documents', 12);
    const [d, m, y] = (await page.locator('table[data-list="documents"] tbody tr td').nth(3).textContent() ?? '').split('-');
    await page.getByLabel('Emitidos desde').fill(`${y}-${m}-${d}`);
    await page.getByLabel('Hasta').fill(`${y}-${m}-${d}`);
    await page.$eval('table[data-list="documents"]', (table) => table.setAttribute('data-stale', ''));
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.locator('table[data-list="documents"]:not([data-stale])').waitFor();
    assert.match(page.url(), /desde=\d{4}-\d\d-\d\d&hasta=\d{4}-\d\d-\d\d/);
    assert.equal(Object.keys(await listedEstados(page)).length, 12, 'the day they were issued holds all of them');
    await page.getByLabel('Emitidos desde').fill('2099-01-01');
    await page.getByLabel('Hasta').fill('');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('No hay documentos con estos filtros en este ambiente.').waitFor();

    await page.getByRole('button', { name: 'Limpiar' }).click();
    await page.getByLabel('Ambiente').selectOption('CerteCF');
    await rows(page, 'documents', 1);
    assert.equal(Object.keys(await listedEstados(page)).length, 1, 'only the CerteCF document');
    await page.reload();
    await heading(page, 'Documentos');
    assert.equal(await page.getByLabel('Ambiente').inputValue(), 'CerteCF', 'the environment is remembered in the session');
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('dates show in the reader\'s time zone', async () => {
    const a = await newTenantWithCertificate(t.url);
    const doc = await emit(a.apiKey, a.rnc);
    const w = await open();
    await signIn(w.page, t.url, a.email, a.password);
    const cell = w.page.locator('table[data-list="documents"] time').first();
    await cell.waitFor();
    const iso = await cell.getAttribute('datetime');
    const expected = new Intl.DateTimeFormat('es-DO', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'America/Santo_Domingo' }).format(new Date(iso as string));
    assert.equal(await cell.textContent(), expected);
    assert.ok(doc.encf);
  });
});

describe('phone width', () => {
  test('at 360 px every page fits without sideways scrolling', async () => {
    const a = await newTenantWithCertificate(t.url);
    const doc = await emit(a.apiKey, a.rnc);
    await waitForEstado(t.url, 'TesteCF', doc.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado']);
    const receiver = await startReceiver({ respond: () => ({ status: 500, body: 'x'.repeat(300) }) });
    closers.push(() => receiver.close());
    const w = await open(PHONE);
    const { page } = w;
    const check = async (name: string): Promise<void> => {
      const { scrollWidth, width } = await horizontalOverflow(page);
      assert.equal(width, 360);
      assert.ok(scrollWidth <= 360, `${name}: scrollWidth ${scrollWidth}`);
      await screenshot(page, `${name}-360`);
    };
    await page.goto(`${t.url}/dashboard/`);
    await heading(page, 'Ingresar');
    await check('sign-in');
    await page.goto(`${t.url}/dashboard/#/registro`);
    await heading(page, 'Crear cuenta');
    await check('register');
    await signIn(page, t.url, a.email, a.password);
    await page.locator('table[data-list="documents"] tbody tr').first().waitFor();
    await check('documents');
    await page.getByRole('link', { name: doc.encf }).click();
    await page.locator('table[data-list="history"]').waitFor();
    await check('document-detail');
    await page.getByRole('link', { name: 'Claves API' }).click();
    await page.locator('table[data-list="keys"]').waitFor();
    await check('api-keys');
    await page.getByRole('link', { name: 'Entregas', exact: true }).click();
    await page.getByText('No hay entregas con estos filtros.').waitFor();
    await check('deliveries-empty');
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByLabel('URL del receptor').fill(`${receiver.url}/con/una/ruta/bastante/larga/para/ver/que/no/desborda`);
    await page.getByRole('button', { name: 'Guardar URL' }).click();
    await page.getByText('URL guardada.').waitFor();
    await page.getByRole('button', { name: 'Generar secreto' }).click();
    await page.locator('#webhook-secret').waitFor();
    await page.getByRole('button', { name: 'Enviar webhook de prueba' }).click();
    await page.locator('[data-test-result]').waitFor();
    await check('webhooks');
    await page.getByRole('link', { name: 'Ver la entrega y sus intentos →' }).click();
    await page.locator('table[data-list="attempts"]').waitFor();
    await check('delivery-detail');
    await page.getByRole('link', { name: 'Entregas', exact: true }).click();
    await page.locator('table[data-list="deliveries"]').waitFor();
    await check('deliveries');
    assert.deepEqual(unexpectedProblems(w), []);
  });
});
