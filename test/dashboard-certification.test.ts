// The Certificación page in a real browser: the fifteen steps of DGII's portal with their
// state and what is left, the signed postulación shown as done by the service, a portal step
// marked done and undone by the taxpayer, a postulación signed from the page, a test set
// imported, sent until accepted; no serious accessibility violation (axe), on a desktop and a
// phone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { seriousViolations } from './helpers/axe.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { call } from './helpers/http.ts';
import { postulacionXml } from './helpers/postulacion.ts';
import { heading, horizontalOverflow, launchBrowser, openPage, PHONE, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { sampleEcf } from './fixtures/ecf.ts';
import { flattenEcf, table, xlsx } from './helpers/workbook.ts';

let t: TestService;
let browser: Browser;
let a: Awaited<ReturnType<typeof newTenantWithCertificate>>;
const pages: WatchedPage[] = [];

before(async () => {
  browser = await launchBrowser();
  t = await startTestService({ env: { ...FAST_PIPELINE, RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
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

test('a postulación is signed from the page and a workbook set is imported, refused when invalid, and sent until every case is accepted', async () => {
  const b = await newTenantWithCertificate(t.url);
  const w = await openPage(browser);
  pages.push(w);
  const { page } = w;
  await signIn(page, t.url, b.email, b.password);
  await page.goto(`${t.url}/dashboard/#/certificacion`);
  await heading(page, 'Certificación');
  await page.getByText('No hay un set de pruebas importado en este ambiente.').waitFor();

  const postulacion = page.locator('form[aria-labelledby="cert-postulacion"]');
  await postulacion.getByLabel('Archivo de la postulación (XML)').setInputFiles({ name: 'Postulacion.xml', mimeType: 'application/xml', buffer: Buffer.from(postulacionXml(b.rnc)) });
  await postulacion.getByRole('button', { name: 'Firmar postulación' }).click();
  await page.getByRole('link', { name: 'Descargar la postulación firmada' }).waitFor();
  await page.getByText('1 de 15 pasos completados en TesteCF.').waitFor();

  const row = (tipo: 31 | 32, caso: string, over: Record<string, string> = {}) => ({ CasoPrueba: caso, ...flattenEcf(sampleEcf(tipo, { Encabezado: { Emisor: { RNCEmisor: b.rnc } } }) as { ECF: Record<string, unknown> }), ...over });
  const form = page.locator('form[aria-labelledby="cert-set"]');
  const upload = async (rows: Record<string, string>[]): Promise<void> => {
    await form.getByLabel('Set de pruebas (.xlsx o CSV)').setInputFiles({ name: 'SetPruebas.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: await xlsx([{ name: 'ECF', rows: table(rows) }]) });
    await form.getByRole('button', { name: 'Importar set' }).click();
  };
  await upload([row(31, 'FCF-1', { MontoTotal: 'mucho' })]);
  await page.getByText(/FCF-1: /).first().waitFor();
  assert.deepEqual(await seriousViolations(page), []);

  await upload([row(31, 'FCF-1'), row(32, 'FC-1')]);
  await page.getByText('Set importado: 2 casos validados.').waitFor();
  await rows(page, 'certification-cases', 2);
  await page.getByRole('button', { name: 'Enviar set' }).click();
  await page.getByText('Todos los casos del set fueron aceptados.').waitFor({ timeout: 30_000 });
  const estados = await page.$$eval('table[data-list="certification-cases"] .badge', (bs) => bs.map((x) => x.getAttribute('data-value')));
  assert.deepEqual(estados, ['aceptado', 'aceptado']);
  await page.getByText('2 de 15 pasos completados en TesteCF.').waitFor();
  await page.getByRole('button', { name: 'Descargar ZIP de revisión' }).waitFor();
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'certification-set');
  assert.deepEqual(unexpectedProblems(w, [422]), []);
});
