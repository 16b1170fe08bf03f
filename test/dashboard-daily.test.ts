// The dashboard for daily work in a real browser: search kept in the address, export buttons,
// the document page (buyer, lines, totals, ITBIS, timbre QR, DGII's reasons), received
// documents with the untrusted-signer mark, the overview, and a delivery's exact body. Every
// page is checked with axe-core in both colour schemes and photographed at 1280 and 390 px.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from './helpers/axe.ts';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { FeSender, receiverBase, SENDER_SUBJECT, signedEcfTo } from './helpers/fe-sender.ts';
import { call } from './helpers/http.ts';
import { heading, launchBrowser, openPage, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
let browser: Browser;
let certs: CertificateFactory;
let hook: Receiver;
let a: Awaited<ReturnType<typeof newTenantWithCertificate>>;
const docs: { accepted: string; rejected: string; encf: string } = { accepted: '', rejected: '', encf: '' };
let receivedId = '';
let deliveryId = '';
const pages: WatchedPage[] = [];
const NARROW = { width: 390, height: 844 } as const;

before(async () => {
  browser = await launchBrowser();
  t = await startTestService({ env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  certs = new CertificateFactory();
  hook = await startReceiver();
  a = await newTenantWithCertificate(t.url);
  const api = { 'x-api-key': a.apiKey };
  const ok = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: api });
  const bad = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc, InformacionAdicionalEmisor: '[simulador:rechazar]' } } }), headers: api });
  docs.accepted = ok.body.data.internalTrackId;
  docs.encf = ok.body.data.encf;
  docs.rejected = bad.body.data.internalTrackId;
  await waitForEstado(t.url, 'TesteCF', docs.accepted, api, ['aceptado']);
  await waitForEstado(t.url, 'TesteCF', docs.rejected, api, ['rechazado']);

  const senderCredentials = certs.make(SENDER_SUBJECT);
  const sender = new FeSender(t.url, receiverBase('TesteCF', a.rnc), senderCredentials);
  await sender.send('recepcion', signedEcfTo(senderCredentials, { rncComprador: a.rnc }).xml, await sender.token());
  receivedId = (await call(t.url, 'GET', '/TesteCF/documentos-recibidos', { headers: api })).body.data.items[0].id;

  const bearer = { authorization: `Bearer ${a.accessToken}` };
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: hook.url }, headers: bearer })).status, 200);
  deliveryId = (await call(t.url, 'POST', '/api/webhooks/test', { json: {}, headers: bearer })).body.data.delivery.id;
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
  await hook?.close();
  certs?.remove();
});

async function open(viewport = { width: 1280, height: 860 }): Promise<WatchedPage> {
  const w = await openPage(browser, viewport);
  pages.push(w);
  await signIn(w.page, t.url, a.email, a.password);
  return w;
}

/** axe in light and dark, and the page at 1280 and 390 px in test-artifacts/. */
async function check(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await seriousViolations(page), [], `${name} (${colorScheme}): no serious or critical axe violation`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  for (const [label, size] of [['1280', { width: 1280, height: 860 }], ['390', { width: 390, height: 844 }]] as const) {
    await page.setViewportSize(size);
    await screenshot(page, `daily-${name}-${label}`);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}

test('the documents list searches by eNCF and buyer RNC, keeps them in the address, and exports CSV and ZIP', async () => {
  const w = await open();
  const { page } = w;
  await page.getByLabel('eNCF').fill(docs.encf);
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await rows(page, 'documents', 1);
  assert.match(page.url(), new RegExp(`encf=${docs.encf}`));
  await page.reload();
  await rows(page, 'documents', 1);
  assert.equal(await page.getByLabel('eNCF').inputValue(), docs.encf, 'the search survives a reload');
  const csv = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Exportar CSV' }).click();
  const file = await csv;
  assert.match(file.suggestedFilename(), /^documentos-TesteCF-\d{4}-\d{2}-\d{2}\.csv$/);
  const text = await (await file.createReadStream()).toArray();
  const lines = Buffer.concat(text).toString('utf8').split('\r\n');
  assert.equal(lines.length, 3, 'BOM+header, the one filtered row, the final newline');
  const zip = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Descargar XML firmados (ZIP)' }).click();
  assert.match((await zip).suggestedFilename(), /\.zip$/);
  assert.ok(w.requests.some((r) => r.path === '/TesteCF/documentos-ecf/export' && r.url.includes(`encf=${docs.encf}`)), 'the export took the filters');

  await page.goto(`${t.url}/dashboard/#/documentos?rncComprador=12`);
  await page.getByRole('alert').waitFor();
  await page.goto(`${t.url}/dashboard/#/documentos`);
  await rows(page, 'documents', 2);
  await check(page, 'documentos');
  assert.deepEqual(unexpectedProblems(w, [422]), []);
});

test('a document shows buyer, lines, totals, the ITBIS by rate and its timbre QR; a rejected one DGII\'s reasons in words', async () => {
  const w = await open();
  const { page } = w;
  await page.goto(`${t.url}/dashboard/#/documentos/${docs.accepted}`);
  await heading(page, `Documento ${docs.encf}`);
  await page.locator('img[data-qr]').waitFor();
  assert.match(await page.locator('img[data-qr]').getAttribute('src') ?? '', /^data:image\/svg\+xml;( charset=utf-8;)?base64,/);
  assert.notEqual(await page.locator('[data-field="buyerName"]').textContent(), '—');
  assert.ok(await page.locator('table[data-list="lines"] tbody tr').count() >= 1);
  assert.ok(await page.locator('table[data-list="itbis"] tbody tr').count() >= 1);
  await check(page, 'documento');

  await page.goto(`${t.url}/dashboard/#/documentos/${docs.rejected}`);
  await page.locator('[data-section="reasons"]').waitFor();
  assert.match(await page.locator('[data-list="reasons"]').textContent() ?? '', /Rechazo de prueba.*Mensaje de la DGII: «Rechazado por solicitud de prueba»/);
  await check(page, 'documento-rechazado');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('received documents: the list marks an unverified signer, the detail shows its content and downloads its XML and ARECF', async () => {
  const w = await open();
  const { page } = w;
  await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Recibidos' }).click();
  await rows(page, 'received', 1);
  assert.equal(await page.locator('table[data-list="received"] .badge[data-value="untrusted"]').textContent(), 'Firmante no verificado');
  await check(page, 'recibidos');
  await page.locator('table[data-list="received"] a').first().click();
  await page.locator('[data-field="untrusted"]').waitFor();
  assert.ok(page.url().endsWith(`#/recibidos/${receivedId}`));
  for (const [name, suffix] of [['Descargar XML', /\.xml$/], ['Descargar ARECF', /^ARECF-.*\.xml$/]] as const) {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name, exact: true }).click();
    const file = await download;
    assert.match(file.suggestedFilename(), suffix);
    const body = Buffer.concat(await (await file.createReadStream()).toArray()).toString('utf8');
    assert.match(body, /<Signature /);
  }
  await check(page, 'recibido');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('the overview shows counts, the acceptance rate, the per-day chart and troubled deliveries from one request', async () => {
  const w = await open();
  const { page } = w;
  await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Resumen' }).click();
  await page.locator('svg[data-chart="per-day"]').waitFor();
  assert.equal(w.requests.filter((r) => r.path === '/TesteCF/estadisticas').length, 1);
  assert.ok(await page.locator('svg[data-chart="per-day"] rect').count() >= 30);
  await page.getByLabel('Desde').fill('2025-03-01');
  await page.getByLabel('Hasta').fill('2025-03-31');
  await page.getByRole('button', { name: 'Ver rango' }).click();
  await page.waitForFunction(() => document.querySelector('[data-period="st-range"] h2')?.textContent?.includes('2025-03-01') === true);
  assert.match(page.url(), /desde=2025-03-01&hasta=2025-03-31/);
  await check(page, 'resumen');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('a delivery shows the exact bytes sent, with a pretty view as a toggle', async () => {
  const w = await open();
  const { page } = w;
  await page.goto(`${t.url}/dashboard/#/configuracion/entregas/${deliveryId}`);
  const pre = page.locator('pre[data-body]');
  await pre.waitFor();
  const sent = hook.received[0]?.raw.toString('utf8') ?? '';
  assert.equal(await pre.textContent(), sent, 'the bytes the receiver got');
  await page.getByRole('button', { name: 'Ver formateado' }).click();
  assert.equal(await pre.textContent(), JSON.stringify(JSON.parse(sent), null, 2));
  assert.equal(await page.getByRole('button', { name: 'Ver formateado' }).getAttribute('aria-pressed'), 'true');
  await check(page, 'entrega');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('every other page has no serious axe violation in either colour scheme', async () => {
  const w = await open();
  const { page } = w;
  for (const [path, name] of [['configuracion/webhooks', 'webhooks'], ['configuracion/entregas', 'entregas'], ['configuracion/certificado', 'certificado'], ['configuracion/claves', 'claves']] as const) {
    await page.goto(`${t.url}/dashboard/#/${path}`);
    await page.locator('h1').waitFor();
    await page.waitForLoadState('networkidle');
    await check(page, name);
  }
  const out = await openPage(browser, NARROW);
  pages.push(out);
  await out.page.goto(`${t.url}/dashboard/#/ingresar`);
  await heading(out.page, 'Ingresar');
  await check(out.page, 'ingresar');
});
