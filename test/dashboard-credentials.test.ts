// The dashboard's credentials in a real browser: API keys (shown once, revoked after a
// confirmation, all of it by keyboard too) and the signing certificate (a .p12 made with
// openssl, uploaded from a file input, listed; a wrong password refused in Spanish).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEFAULT_KEY_NAME } from '../src/dashboard/client/labels.ts';
import { DESKTOP, heading, launchBrowser, openPage, openSettings, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { makeTestCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { call, newTenant } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
let browser: Browser;
let files: string;
const pages: WatchedPage[] = [];

before(async () => {
  // The browser first: without one the file fails at once instead of leaving a service running.
  browser = await launchBrowser();
  t = await startTestService({ env: FAST_PIPELINE });
  files = await mkdtemp(join(tmpdir(), 'ecf-dashboard-p12-'));
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
  if (files !== undefined) await rm(files, { recursive: true, force: true });
});

async function signedIn(): Promise<{ w: WatchedPage; page: Page; tenant: Awaited<ReturnType<typeof newTenant>> }> {
  const tenant = await newTenant(t.url);
  const w = await openPage(browser, DESKTOP);
  pages.push(w);
  await signIn(w.page, t.url, tenant.email, tenant.password);
  return { w, page: w.page, tenant };
}

const focusedText = (page: Page) => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  return { tag: el?.tagName ?? '', id: el?.id ?? '', text: el?.textContent?.trim() ?? '' };
});

describe('API keys', () => {
  test('a key is created and shown once, works at once, and is revoked after a confirmation', async () => {
    const { w, page, tenant } = await signedIn();
    await openSettings(page, 'Claves API');
    await heading(page, 'Claves API');
    await rows(page, 'keys', 1);
    // The key made at registration carries the service's English name; the page says it in Spanish.
    const listed = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${tenant.accessToken}` } });
    assert.equal(listed.body.data[0].name, DEFAULT_KEY_NAME.server);
    assert.equal(await page.locator('table[data-list="keys"] tbody td').first().textContent(), 'Clave inicial');

    await page.getByLabel('Nombre').fill('ERP de pruebas');
    await page.getByRole('button', { name: 'Crear clave' }).click();
    const key = await page.locator('#new-api-key').inputValue();
    assert.match(key, /^ecf_sk_/);
    assert.equal((await focusedText(page)).id, 'new-api-key', 'the new key has the focus, ready to copy');
    await rows(page, 'keys', 2);
    const row = page.locator('table[data-list="keys"] tbody tr', { hasText: 'ERP de pruebas' });
    assert.match(await row.textContent() ?? '', /Activa/);
    assert.ok(!(await page.locator('table[data-list="keys"]').textContent() ?? '').includes(key), 'the list never shows the secret');
    await screenshot(page, 'api-keys');
    const use = () => call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: { 'x-api-key': key } });
    assert.equal((await use()).status, 200);

    await row.getByRole('button', { name: 'Revocar la clave ERP de pruebas' }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.match(await row.textContent() ?? '', /Activa/, 'Escape cancels');
    assert.equal((await use()).status, 200);
    assert.equal(await page.locator('#new-api-key').inputValue(), key, 'cancelled: the value stays');

    await row.getByRole('button', { name: 'Revocar la clave ERP de pruebas' }).click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.textContent() ?? '', /ERP de pruebas/);
    await screenshot(page, 'api-keys-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revocar clave' }).click();
    await page.getByText('Clave «ERP de pruebas» revocada.').waitFor();
    await page.locator('table[data-list="keys"] tbody tr', { hasText: 'ERP de pruebas' }).locator('.badge[data-value="revoked"]').waitFor();
    // The Revocar button went with its row: the focus is on what happened, not lost on the body.
    assert.deepEqual(await focusedText(page), { tag: 'DIV', id: '', text: 'Clave «ERP de pruebas» revocada.' });
    // The revoked key's full value is no longer on screen.
    assert.equal(await page.locator('#new-api-key').count(), 0);
    assert.equal((await use()).status, 403);
    assert.equal((await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: { 'x-api-key': tenant.apiKey } })).status, 200, 'the other key still works');
    await screenshot(page, 'api-keys-revoked');
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('revoking another key leaves the new key on screen; the keyboard alone creates and revokes', async () => {
    const { w, page } = await signedIn();
    await page.goto(`${t.url}/dashboard/#/configuracion/claves`);
    await heading(page, 'Claves API');
    await rows(page, 'keys', 1);
    await page.getByRole('heading', { level: 1 }).focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'name');
    await page.keyboard.type('Tienda en línea');
    await page.keyboard.press('Enter');
    await page.locator('#new-api-key').waitFor();
    await rows(page, 'keys', 2);
    assert.equal((await focusedText(page)).id, 'new-api-key');
    const key = await page.locator('#new-api-key').inputValue();

    // Tab to the first key's Revocar (the initial key, older, listed second) and confirm with the keyboard.
    for (let i = 0; i < 15 && (await focusedText(page)).text !== 'Revocar'; i++) await page.keyboard.press('Tab');
    const target = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    assert.equal(target, 'Revocar la clave Tienda en línea', 'the newest key is listed first');
    // Past the next row's Cambiar ámbito to its Revocar.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Cambiar ámbito de la clave Clave inicial');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Revocar la clave Clave inicial');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    assert.equal((await focusedText(page)).text, 'Cancelar', 'the safe answer has the focus');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByText('Clave «Clave inicial» revocada.').waitFor();
    assert.equal((await focusedText(page)).text, 'Clave «Clave inicial» revocada.');
    assert.equal(await page.locator('#new-api-key').inputValue(), key, 'another key was revoked: the new one stays shown');
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('a key is created for the chosen environments and read-only, and the list shows both', async () => {
    const { w, page, tenant } = await signedIn();
    await page.goto(`${t.url}/dashboard/#/configuracion/claves`);
    await heading(page, 'Claves API');
    await rows(page, 'keys', 1);
    // The default of the API: both test environments, production unchecked, read-write.
    assert.equal(await page.getByLabel('TesteCF (pruebas)').isChecked(), true);
    assert.equal(await page.getByLabel('CerteCF (certificación)').isChecked(), true);
    assert.equal(await page.getByLabel('eCF (producción)').isChecked(), false);
    await page.getByLabel('Nombre').fill('Consultas producción');
    await page.getByLabel('TesteCF (pruebas)').uncheck();
    await page.getByLabel('CerteCF (certificación)').uncheck();
    await page.getByLabel('eCF (producción)').check();
    await page.getByLabel(/Solo lectura/).check();
    await page.getByRole('button', { name: 'Crear clave' }).click();
    await page.locator('#new-api-key').waitFor();
    await rows(page, 'keys', 2);
    const row = page.locator('table[data-list="keys"] tbody tr', { hasText: 'Consultas producción' });
    assert.match(await row.textContent() ?? '', /eCF · Solo lectura/);
    assert.match(await page.locator('table[data-list="keys"] tbody tr', { hasText: 'Clave inicial' }).textContent() ?? '', /TesteCF, CerteCF, eCF · Lectura y escritura/);
    const listed = await call(t.url, 'GET', '/api/keys', { headers: { authorization: `Bearer ${tenant.accessToken}` } });
    const made = listed.body.data.find((k: { name: string }) => k.name === 'Consultas producción');
    assert.deepEqual([made.environments, made.readOnly], [['eCF'], true]);
    // The form is back to the default for the next key.
    assert.equal(await page.getByLabel('eCF (producción)').isChecked(), false);
    assert.deepEqual(unexpectedProblems(w), []);
  });
});

describe('signing certificate', () => {
  test('a .p12 is uploaded from the page and listed as the active certificate; a wrong password is refused in Spanish', async () => {
    const { w, page, tenant } = await signedIn();
    const cert = makeTestCertificate(tenant.rnc, { name: 'Colmado El Sol SRL' });
    const file = join(files, 'firma.p12');
    await writeFile(file, cert.p12);

    await openSettings(page, 'Certificado');
    await heading(page, 'Certificado de firma');
    await page.getByText('Todavía no hay certificado').waitFor();

    await page.getByLabel('Archivo (.p12 o .pfx)').setInputFiles(file);
    await page.getByLabel('Contraseña del archivo').fill('no es la clave');
    await page.getByRole('button', { name: 'Subir certificado' }).click();
    const alert = page.locator('[role="alert"][data-code="VALIDATION_ERROR"]');
    await alert.waitFor();
    assert.equal(await alert.textContent(), 'Revise los datos:Contraseña del archivo: no es correcta.');
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'password', 'ready to type it again');
    await screenshot(page, 'certificate-wrong-password');

    await page.getByLabel('Contraseña del archivo').fill(cert.password);
    await page.getByRole('button', { name: 'Subir certificado' }).click();
    await page.getByText('Certificado de «Colmado El Sol SRL» subido').waitFor();
    await rows(page, 'certificates', 1);
    const cells = await page.$$eval('table[data-list="certificates"] tbody td', (td) => td.map((x) => x.textContent));
    assert.equal(cells[0], 'Colmado El Sol SRL');
    assert.equal(cells[1], tenant.rnc);
    assert.equal(await page.locator('table[data-list="certificates"] .badge').getAttribute('data-value'), 'active');
    const stored = await call(t.url, 'GET', '/api/certificates', { headers: { authorization: `Bearer ${tenant.accessToken}` } });
    assert.equal(stored.body.data.length, 1);
    assert.equal(stored.body.data[0].active, true);
    assert.equal(stored.body.data[0].holderId, tenant.rnc);
    assert.equal(await page.locator('table[data-list="certificates"] time').first().getAttribute('datetime'), stored.body.data[0].validFrom);
    await screenshot(page, 'certificate');

    // A second one takes over; the first stays listed, inactive, and can be deleted.
    const next = makeTestCertificate(tenant.rnc, { name: 'Colmado El Sol SRL (renovado)' });
    await writeFile(file, next.p12);
    await page.getByLabel('Archivo (.p12 o .pfx)').setInputFiles(file);
    await page.getByLabel('Contraseña del archivo').fill(next.password);
    await page.getByRole('button', { name: 'Subir certificado' }).click();
    await rows(page, 'certificates', 2);
    assert.deepEqual(await page.$$eval('table[data-list="certificates"] .badge', (b) => b.map((x) => x.getAttribute('data-value'))), ['active', 'inactive']);
    await page.getByRole('button', { name: 'Eliminar el certificado de Colmado El Sol SRL', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Eliminar certificado' }).click();
    await rows(page, 'certificates', 1);
    assert.equal((await focusedText(page)).text, 'Certificado eliminado.');
    assert.equal((await call(t.url, 'GET', '/api/certificates', { headers: { authorization: `Bearer ${tenant.accessToken}` } })).body.data.length, 1);
    assert.deepEqual(unexpectedProblems(w, [422]), []);
  });

  test('a file that is not a certificate is refused in words', async () => {
    const { w, page } = await signedIn();
    const file = join(files, 'factura.p12');
    await writeFile(file, 'esto no es un certificado');
    await page.goto(`${t.url}/dashboard/#/configuracion/certificado`);
    await page.getByLabel('Archivo (.p12 o .pfx)').setInputFiles(file);
    await page.getByRole('button', { name: 'Subir certificado' }).click();
    const alert = page.locator('[role="alert"][data-code="VALIDATION_ERROR"]');
    await alert.waitFor();
    assert.equal(await alert.locator('li').getAttribute('data-path'), 'p12');
    assert.equal(await alert.textContent(), 'Revise los datos:Archivo: no es un certificado .p12/.pfx válido, o está dañado.');
    assert.deepEqual(unexpectedProblems(w, [422]), []);
  });
});
