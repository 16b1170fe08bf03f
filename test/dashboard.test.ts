// The dashboard in a real browser (headless Chromium): signing up and in, a document
// reaching its verdict on screen, the token refresh and sign-out. Documents' filters and
// paging and the phone layout are in dashboard-documents.test.ts; webhooks, deliveries and
// API keys in dashboard-settings.test.ts; serving and building in dashboard-serving.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { makeTestCertificate, uploadCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant } from './helpers/http.ts';
import { DESKTOP, foreignRequests, heading, launchBrowser, listedEstados, openPage, openSettings, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { randomRnc } from './helpers/tax-ids.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestService;
let browser: Browser;
const pages: WatchedPage[] = [];

before(async () => {
  // The browser first: without one the file fails at once instead of leaving a service running.
  browser = await launchBrowser();
  t = await startTestService({ env: FAST_PIPELINE });
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
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

describe('signing up and in', () => {
  test('a new business registers in the browser, sees its API key once, and watches a document reach aceptado', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${t.url}/dashboard`);
    await heading(page, 'Ingresar');
    assert.match(page.url(), /\/dashboard\/#\/ingresar$/);
    await screenshot(page, 'sign-in');
    await page.getByRole('link', { name: 'Crear una cuenta' }).click();
    await heading(page, 'Crear cuenta');
    const rnc = randomRnc();
    const email = `nueva${Date.now()}@example.com`;
    const password = 'una clave bastante larga';
    await page.getByLabel('Nombre de la empresa').fill('Colmado La Esquina SRL');
    await page.getByLabel('RNC o cédula').fill(rnc);
    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña').fill(password);
    await screenshot(page, 'register');
    await page.getByRole('button', { name: 'Crear cuenta' }).click();
    await heading(page, 'Cuenta creada');
    const apiKey = await page.locator('#new-api-key').inputValue();
    assert.match(apiKey, /^ecf_sk_/);
    await screenshot(page, 'register-done');
    await page.getByRole('button', { name: 'Continuar al panel' }).click();
    await heading(page, 'Documentos');
    await page.getByText('No hay documentos con estos filtros en este ambiente.').waitFor();
    assert.equal(await page.locator('.account').textContent(), 'Colmado La Esquina SRL');
    await screenshot(page, 'documents-empty');

    // Signing needs the tenant's certificate; the ERP then emits with the key it was shown.
    const login = await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email, password } });
    assert.equal((await uploadCertificate(t.url, login.body.data.accessToken, makeTestCertificate(rnc))).status, 201);
    const doc = await emit(apiKey, rnc);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.locator('table[data-list="documents"] a', { hasText: doc.encf }).waitFor();
    // The list refreshes itself while a document is in process.
    await page.locator('table[data-list="documents"] .badge[data-value="aceptado"]').waitFor({ timeout: 20_000 });
    assert.deepEqual(await listedEstados(page), { [doc.encf]: 'aceptado' });
    await screenshot(page, 'documents');

    await page.getByRole('link', { name: doc.encf }).click();
    await heading(page, `Documento ${doc.encf}`);
    await page.locator('[data-field="dgiiCode"]', { hasText: '0' }).waitFor();
    assert.equal(await page.locator('[data-field="dgiiMessage"]').textContent(), 'Aceptado');
    const detail = await waitForEstado(t.url, 'TesteCF', doc.internalTrackId, { 'x-api-key': apiKey }, ['aceptado']);
    assert.equal(await page.locator('[data-field="securityCode"]').textContent(), detail.securityCode);
    assert.deepEqual(await page.$$eval('table[data-list="history"] .badge', (b) => b.map((x) => x.getAttribute('data-value'))), ['recibido', 'en_proceso', 'aceptado']);
    if (typeof detail.timbreUrl === 'string') {
      assert.equal(await page.locator('a[data-timbre]').getAttribute('href'), detail.timbreUrl);
      assert.equal(await page.locator('a[data-timbre]').getAttribute('rel'), 'noopener noreferrer');
    }
    await screenshot(page, 'document-detail');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar XML firmado' }).click()]);
    assert.equal(download.suggestedFilename(), `${doc.encf}.xml`);
    const xml = await (await download.createReadStream()).toArray();
    const direct = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${doc.internalTrackId}/xml`, { headers: { 'x-api-key': apiKey } });
    assert.equal(Buffer.concat(xml).toString('utf8'), direct.text);
    assert.match(direct.text, /<Signature/);
    // Everything the page fetched came from the service itself.
    assert.ok(w.requests.length > 10, `${w.requests.length} requests recorded`);
    assert.ok(w.requests.every((r) => r.url.startsWith(`${t.url}/`)), JSON.stringify(w.requests.map((r) => r.url)));
    assert.deepEqual(foreignRequests(w), []);
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('a wrong password is refused in words; the keyboard alone signs in', async () => {
    const a = await newTenant(t.url);
    const w = await open();
    const { page } = w;
    await page.goto(`${t.url}/dashboard/`);
    await heading(page, 'Ingresar');
    await page.getByLabel('Correo electrónico').fill(a.email);
    await page.getByLabel('Contraseña').fill('not the password');
    await page.getByLabel('Contraseña').press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const refused = await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: a.email, password: 'not the password' } });
    assert.equal(refused.body.error.code, 'INVALID_CREDENTIALS');
    // In Spanish only: the server's English message is not repeated after the sentence.
    assert.equal(await alert.textContent(), 'Correo o contraseña incorrectos.');
    assert.equal(await alert.getAttribute('data-code'), 'INVALID_CREDENTIALS');
    await screenshot(page, 'sign-in-error');

    // Labels name every field; Tab moves through them and the focus ring shows.
    await page.getByLabel('Correo electrónico').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), 'password');
    await page.keyboard.type(a.password);
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { tag: el.tagName, text: el.textContent, outline: getComputedStyle(el).outlineStyle, width: getComputedStyle(el).outlineWidth };
    });
    assert.deepEqual({ tag: ring.tag, text: ring.text }, { tag: 'BUTTON', text: 'Ingresar' });
    assert.notEqual(ring.outline, 'none', 'the focused button shows a focus ring');
    assert.notEqual(ring.width, '0px');
    await page.keyboard.press('Enter');
    await heading(page, 'Documentos');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'page-title', 'focus moves to the new page');
    assert.deepEqual(unexpectedProblems(w, [401]), []);
  });

  test('where registration is disabled the page offers no sign-up and says whom to ask', async () => {
    const closed = await startTestService({ env: { REGISTRATION_ENABLED: 'false' } });
    try {
      const config = await call(closed.url, 'GET', '/dashboard/config.json');
      assert.deepEqual(config.body, { success: true, data: { registrationEnabled: false, sequenceExpiryWarningDays: 30 } });
      const w = await open();
      await w.page.goto(`${closed.url}/dashboard/`);
      await heading(w.page, 'Ingresar');
      await w.page.locator('[data-registration="closed"]').waitFor();
      assert.equal(await w.page.getByRole('link', { name: 'Crear una cuenta' }).count(), 0);
      assert.match(await w.page.locator('[data-registration="closed"]').textContent() ?? '', /no admite el registro.*administrador/);
      await screenshot(w.page, 'sign-in-registration-closed');
      // Typed by hand, the address explains instead of showing four fields the server would refuse.
      await w.page.goto(`${closed.url}/dashboard/#/registro`);
      await heading(w.page, 'Crear cuenta');
      await w.page.locator('.card[data-registration="closed"]').waitFor();
      assert.equal(await w.page.getByLabel('Nombre de la empresa').count(), 0);
      assert.equal(await w.page.getByRole('button', { name: 'Crear cuenta' }).count(), 0);
      await w.page.getByRole('link', { name: 'Ingresar' }).click();
      await heading(w.page, 'Ingresar');
      assert.equal(w.requests.filter((r) => r.path.endsWith('/customer/register')).length, 0);
      assert.deepEqual(unexpectedProblems(w), []);
    } finally {
      await closed.close();
    }
  });

  test('where registration is open the sign-in page links to it', async () => {
    assert.deepEqual((await call(t.url, 'GET', '/dashboard/config.json')).body, { success: true, data: { registrationEnabled: true, sequenceExpiryWarningDays: 30 } });
    const w = await open();
    await w.page.goto(`${t.url}/dashboard/`);
    await w.page.getByRole('link', { name: 'Crear una cuenta' }).click();
    await heading(w.page, 'Crear cuenta');
    await w.page.getByLabel('Nombre de la empresa').waitFor();
    assert.equal(await w.page.locator('[data-registration="closed"]').count(), 0);
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('validation errors list every detail of the 422', async () => {
    const w = await open();
    await w.page.goto(`${t.url}/dashboard/#/registro`);
    await heading(w.page, 'Crear cuenta');
    // The browser's own checks are bypassed to show what the server says.
    await w.page.$eval('form', (f) => f.setAttribute('novalidate', ''));
    await w.page.getByLabel('Nombre de la empresa').fill('X');
    await w.page.getByLabel('RNC o cédula').fill('12');
    await w.page.getByLabel('Correo electrónico').fill('no-es-correo');
    await w.page.getByLabel('Contraseña').fill('corta');
    await w.page.getByRole('button', { name: 'Crear cuenta' }).click();
    await w.page.locator('[role="alert"][data-code="VALIDATION_ERROR"] li').first().waitFor();
    const details = Object.fromEntries(await w.page.$$eval('[role="alert"] li', (li) => li.map((x) => [x.getAttribute('data-path'), x.textContent])));
    assert.deepEqual(Object.keys(details).sort(), ['email', 'password', 'rnc']);
    // Each under the field's name on the page, in Spanish.
    assert.equal(details.rnc, 'RNC o cédula: debe ser un RNC (9 dígitos) o una cédula (11 dígitos), sin guiones.');
    assert.equal(details.email, 'Correo electrónico: debe ser una dirección de correo.');
    assert.match(details.password as string, /^Contraseña: debe tener al menos \d+ caracteres\.$/);
    assert.equal(await w.page.getByRole('alert').locator('[lang="en"]').count(), 0, 'nothing left in English');
    await screenshot(w.page, 'register-invalid');
    assert.deepEqual(unexpectedProblems(w, [422]), []);
  });
});

describe('session', () => {
  test('a 401 triggers exactly one refresh shared by the requests that met it', async () => {
    const a = await newTenant(t.url);
    const w = await open();
    const { page } = w;
    await signIn(page, t.url, a.email, a.password);
    await page.getByText('No hay documentos').waitFor();
    const before = await page.evaluate(() => sessionStorage.getItem('ecf-dashboard.tokens'));
    // A token the server cannot verify: the header's account and the list both meet 401 at once.
    await page.evaluate(() => {
      const tokens = JSON.parse(sessionStorage.getItem('ecf-dashboard.tokens') as string) as { accessToken: string };
      tokens.accessToken = `${tokens.accessToken.slice(0, -6)}AAAAAA`;
      sessionStorage.setItem('ecf-dashboard.tokens', JSON.stringify(tokens));
    });
    w.requests.length = 0;
    await page.reload();
    await page.getByText('No hay documentos').waitFor();
    await page.locator('.account', { hasText: /SRL/ }).waitFor();
    const refreshes = w.requests.filter((r) => r.path.endsWith('/customer/refresh'));
    assert.equal(refreshes.length, 1, JSON.stringify(w.requests));
    await waitFor(async () => w.requests.every((r) => r.status !== null), 5000, 'answers');
    const unauthorised = w.requests.filter((r) => r.status === 401).map((r) => r.path).sort();
    assert.deepEqual(unauthorised, ['/TesteCF/documentos-ecf', '/api/account'], 'both requests met the 401');
    assert.equal(refreshes[0]?.status, 200);
    const after = JSON.parse(await page.evaluate(() => sessionStorage.getItem('ecf-dashboard.tokens')) as string) as { refreshToken: string };
    assert.notEqual(after.refreshToken, JSON.parse(before as string).refreshToken, 'the rotated refresh token is kept');
    // The session is intact (a reused refresh token would have revoked it).
    await openSettings(page, 'Claves API');
    await page.locator('table[data-list="keys"]').waitFor();
    assert.equal(w.requests.filter((r) => r.path.endsWith('/customer/refresh')).length, 1);
    assert.deepEqual(unexpectedProblems(w, [401]), []);
  });

  test('a session that cannot be refreshed returns to the sign-in page with a notice', async () => {
    const a = await newTenant(t.url);
    const w = await open();
    await signIn(w.page, t.url, a.email, a.password);
    // The session is revoked elsewhere: logout with this tab's own token.
    const tokens = JSON.parse(await w.page.evaluate(() => sessionStorage.getItem('ecf-dashboard.tokens')) as string) as { accessToken: string };
    assert.equal((await call(t.url, 'POST', '/TesteCF/customer/logout', { headers: { authorization: `Bearer ${tokens.accessToken}` } })).status, 200);
    // The next request meets the revoked session: the click's, or one the page makes on its own
    // (a page that polls) when that comes first; either way the page goes back to sign-in.
    const settings = w.page.getByRole('link', { name: 'Configuración' });
    await settings.click({ timeout: 5000 }).catch(async (err: unknown) => {
      if (await settings.isVisible()) throw err;
    });
    await heading(w.page, 'Ingresar');
    await w.page.getByText('Su sesión terminó. Ingrese de nuevo.').waitFor();
    assert.equal(await w.page.evaluate(() => sessionStorage.getItem('ecf-dashboard.tokens')), null);
    assert.deepEqual(unexpectedProblems(w, [401]), []);
  });

  test('Salir revokes the session on the server and forgets the tokens', async () => {
    const a = await newTenant(t.url);
    const w = await open();
    await signIn(w.page, t.url, a.email, a.password);
    const tokens = JSON.parse(await w.page.evaluate(() => sessionStorage.getItem('ecf-dashboard.tokens')) as string) as { accessToken: string; refreshToken: string };
    await w.page.getByRole('button', { name: 'Salir' }).click();
    await heading(w.page, 'Ingresar');
    await w.page.getByText('Sesión cerrada.').waitFor();
    assert.equal(await w.page.evaluate(() => sessionStorage.getItem('ecf-dashboard.tokens')), null);
    assert.equal(await w.page.getByRole('navigation', { name: 'Secciones' }).isHidden(), true);
    assert.equal(await w.page.getByRole('button', { name: 'Salir' }).isHidden(), true);
    assert.equal((await call(t.url, 'GET', '/api/account', { headers: { authorization: `Bearer ${tokens.accessToken}` } })).status, 401);
    assert.equal((await call(t.url, 'POST', '/TesteCF/customer/refresh', { json: { refreshToken: tokens.refreshToken } })).status, 401);
    // Signed out, the sections are not reachable.
    await w.page.goto(`${t.url}/dashboard/#/configuracion/claves`);
    await heading(w.page, 'Ingresar');
    assert.deepEqual(unexpectedProblems(w), []);
  });
});
