// The Certificación page in a real browser: the fifteen steps of DGII's portal with their
// state and what is left, the signed postulación shown as done by the service, a portal step
// marked done and undone by the taxpayer; no serious accessibility violation (axe), on a desktop
// and a phone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { seriousViolations } from './helpers/axe.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { call } from './helpers/http.ts';
import { postulacionXml } from './helpers/postulacion.ts';
import { heading, horizontalOverflow, launchBrowser, openPage, PHONE, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
let browser: Browser;
let a: Awaited<ReturnType<typeof newTenantWithCertificate>>;
const pages: WatchedPage[] = [];

before(async () => {
  browser = await launchBrowser();
  t = await startTestService({ env: { RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  a = await newTenantWithCertificate(t.url);
  const signed = await call(t.url, 'POST', '/TesteCF/certificacion/firmar', { body: postulacionXml(a.rnc), headers: { 'content-type': 'application/xml', authorization: `Bearer ${a.accessToken}` } });
  assert.equal(signed.status, 200, signed.text);
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
});

test('Certificación lists the portal\'s steps, shows the signed postulación done, and marks a portal step done and back', async () => {
  const w = await openPage(browser);
  pages.push(w);
  const { page } = w;
  await signIn(page, t.url, a.email, a.password);
  await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Certificación' }).click();
  await heading(page, 'Certificación');
  await rows(page, 'certification-steps', 15);
  await page.getByText('1 de 15 pasos completados en TesteCF.').waitFor();
  const first = page.locator('table[data-list="certification-steps"] tbody tr').first();
  assert.equal(await first.locator('.badge').getAttribute('data-value'), 'completado');
  assert.match(await first.innerText(), /Lo sabe el servicio/);
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'certification-steps');

  const jurada = page.locator('table[data-list="certification-steps"] tbody tr', { hasText: 'Declaración jurada' });
  await jurada.getByRole('button', { name: 'Marcar completado: Declaración jurada' }).click();
  await page.getByText('Paso 13 marcado como completado.').waitFor();
  await page.getByText('2 de 15 pasos completados en TesteCF.').waitFor();
  assert.equal(await jurada.locator('.badge').getAttribute('data-value'), 'completado');
  assert.match(await jurada.innerText(), /Marcado por usted/);
  const stored = await call(t.url, 'GET', '/TesteCF/certificacion', { headers: { authorization: `Bearer ${a.accessToken}` } });
  assert.equal(stored.body.data.pasos[12].estado, 'completado');
  await jurada.getByRole('button', { name: 'Deshacer: Declaración jurada' }).click();
  await page.getByText('Paso 13 vuelve a pendiente.').waitFor();
  assert.equal(await jurada.locator('.badge').getAttribute('data-value'), 'pendiente');
  assert.equal(await first.getByRole('button').count(), 0, 'what the service knows is not marked by hand');
  assert.deepEqual(await seriousViolations(page), []);
  assert.deepEqual(unexpectedProblems(w), []);
});

test('on a phone the page fits the screen and has no serious accessibility violation', async () => {
  const w = await openPage(browser, PHONE);
  pages.push(w);
  const { page } = w;
  await signIn(page, t.url, a.email, a.password);
  await page.goto(`${t.url}/dashboard/#/certificacion`);
  await heading(page, 'Certificación');
  await rows(page, 'certification-steps', 15);
  const { scrollWidth, width } = await horizontalOverflow(page);
  assert.ok(scrollWidth <= width, `no horizontal scroll: ${scrollWidth} > ${width}`);
  assert.deepEqual(await seriousViolations(page), []);
  assert.deepEqual(unexpectedProblems(w), []);
});
