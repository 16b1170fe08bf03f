// Commercial approval in a real browser: two tenants of one service exchange a type 31 through
// the in-process simulator's directory, B approves it on the received document's page, and A's
// document shows the approval. A second tab still showing the buttons gets the 409 in words
// and then shows the decision already taken. And a buyer leg that ended in error (the buyer's
// receiver down) is delivered again from the issued document's page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { sampleEcf } from './fixtures/ecf.ts';
import { seriousViolations } from './helpers/axe.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { call, type Loose } from './helpers/http.ts';
import { heading, launchBrowser, openPage, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';
import { type ReceiverGateway, startReceiverGateway } from './helpers/receiver-gateway.ts';

type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;
let t: TestService;
let browser: Browser;
let a: Tenant;
let b: Tenant;
let issuedId = '';
let receivedId = '';
const pages: WatchedPage[] = [];
const gateways: ReceiverGateway[] = [];

before(async () => {
  browser = await launchBrowser();
  t = await startTestService({ env: { ...FAST_PIPELINE, EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true', EXCHANGE_RETRY_BASE_MS: '20', EXCHANGE_RETRY_MAX_MS: '50', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000' } });
  a = await newTenantWithCertificate(t.url);
  b = await newTenantWithCertificate(t.url);
  const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc }, Comprador: { RNCComprador: b.rnc } } }),
    headers: { 'x-api-key': a.apiKey },
  });
  assert.equal(emitted.status, 202, emitted.text);
  issuedId = emitted.body.data.internalTrackId as string;
  const encf = emitted.body.data.encf as string;
  receivedId = await waitFor(async () => {
    const list = await call(t.url, 'GET', `/TesteCF/documentos-recibidos?encf=${encf}`, { headers: { 'x-api-key': b.apiKey } });
    return (list.body.data.items[0] as Loose | undefined)?.id as string | undefined;
  }, 60_000, 'the e-CF in B\'s documentos-recibidos');
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  await browser?.close();
  for (const g of gateways) await g.close();
  await t?.close();
});

async function openReceived(): Promise<WatchedPage> {
  const w = await openPage(browser);
  pages.push(w);
  await signIn(w.page, t.url, b.email, b.password);
  await w.page.goto(`${t.url}/dashboard/#/recibidos/${receivedId}`);
  await heading(w.page, /^Recibido E31/);
  return w;
}

test('B approves the received e-CF in the dashboard, A\'s document shows it, and a stale second decision shows the 409 and the decision taken', async () => {
  await waitFor(async () => {
    const d = (await call(t.url, 'GET', `/TesteCF/documentos-recibidos/${receivedId}`, { headers: { 'x-api-key': b.apiKey } })).body.data as Loose;
    return (d.verificacionDgii as Loose).estado === 'aceptado' ? true : undefined;
  }, 30_000, 'B\'s check with DGII');
  const first = await openReceived();
  // What DGII said of the document shows among its facts.
  assert.equal(await first.page.locator('[data-field="verificacion-dgii"] .badge').getAttribute('data-value'), 'aceptado');
  assert.equal(await first.page.locator('[data-field="verificacion-dgii"] .badge').textContent(), 'Aceptado por DGII');
  const stale = await openReceived();
  const { page } = first;
  const row = page.locator('[data-actions="received"]');
  await page.getByText('Todavía no ha aprobado ni rechazado este documento.').waitFor();
  assert.deepEqual(await row.locator('button[data-action="approve"], button[data-action="reject"]').allTextContents(), ['Aprobar', 'Rechazar']);

  // Rechazar asks for the reason first; cancelling leaves everything as it was.
  await row.getByRole('button', { name: 'Rechazar' }).click();
  await page.getByLabel('Motivo del rechazo').waitFor();
  assert.deepEqual(await seriousViolations(page), []);
  await page.getByRole('button', { name: 'Cancelar' }).click();
  assert.equal(await page.getByLabel('Motivo del rechazo').isVisible(), false);

  await row.getByRole('button', { name: 'Aprobar' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Aprobar' }).click();
  await page.getByText('Documento aprobado: la aprobación se envía al emisor y a DGII.').waitFor();
  assert.equal(await page.locator('[data-approval] .badge[data-value="aprobado"]').textContent(), 'Aprobado');
  assert.equal(await row.getByRole('button', { name: 'Aprobar' }).isVisible(), false, 'one decision per document');
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'received-approved');

  const approved = await waitFor(async () => {
    const d = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${issuedId}`, { headers: { 'x-api-key': a.apiKey } })).body.data as Loose;
    return d.aprobacionComercial !== null ? d.aprobacionComercial as Loose : undefined;
  }, 30_000, 'the approval on A\'s document');
  assert.equal(approved.estado, 'aprobado');

  // The other tab was opened before the decision: its rejection is refused with the API's 409.
  const p2 = stale.page;
  await p2.locator('[data-actions="received"]').getByRole('button', { name: 'Rechazar' }).click();
  await p2.getByLabel('Motivo del rechazo').fill('Mercancía incompleta');
  await p2.getByRole('button', { name: 'Enviar rechazo' }).click();
  const alert = p2.locator('[role="alert"][data-code="CONFLICT"]');
  await alert.waitFor();
  await p2.locator('[data-approval="aprobado"]').waitFor();
  assert.equal(await p2.getByRole('button', { name: 'Enviar rechazo' }).isVisible(), false);
  await screenshot(p2, 'received-second-decision');
  const after409 = (await call(t.url, 'GET', `/TesteCF/documentos-recibidos/${receivedId}`, { headers: { 'x-api-key': b.apiKey } })).body.data as Loose;
  assert.equal((after409.aprobacionComercial as Loose).estado, 'aprobado', 'the first decision stands');

  assert.deepEqual(unexpectedProblems(first), []);
  assert.deepEqual(unexpectedProblems(stale, [409]), []);
});

test('A delivers again from the document\'s page a buyer leg left in error by a receiver that was down; a stale tab gets the 409 in Spanish', async () => {
  const c = await newTenantWithCertificate(t.url);
  const gateway = await startReceiverGateway(`${t.url}/TesteCF/receptor/${c.rnc}`);
  gateways.push(gateway);
  t.service.simulator?.listInDirectory({ nombre: 'C', rnc: c.rnc, urlRecepcion: gateway.url, urlAceptacion: gateway.url, urlOpcional: gateway.url });
  const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc }, Comprador: { RNCComprador: c.rnc } } }),
    headers: { 'x-api-key': a.apiKey },
  });
  assert.equal(emitted.status, 202, emitted.text);
  const id = emitted.body.data.internalTrackId as string;
  await waitFor(async () => {
    const d = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: { 'x-api-key': a.apiKey } })).body.data as Loose;
    return (d.receptor as Loose).estado === 'error' ? d : undefined;
  }, 30_000, 'the buyer leg in error');

  const open = async (): Promise<WatchedPage> => {
    const w = await openPage(browser);
    pages.push(w);
    await signIn(w.page, t.url, a.email, a.password);
    await w.page.goto(`${t.url}/dashboard/#/documentos/${id}`);
    await heading(w.page, /^Documento E31/);
    return w;
  };
  const first = await open();
  const stale = await open();
  const { page } = first;
  const section = page.locator('[data-section="redeliver"]');
  await section.waitFor();
  assert.equal(await page.locator('[data-field="receptor"]').textContent(), 'Error al entregar');
  assert.match(await page.locator('[data-field="receptorDetalle"]').textContent() ?? '', /after 8 attempts/);
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'document-buyer-leg-error');

  gateway.release();
  await section.getByRole('button', { name: 'Reenviar al receptor' }).click();
  await page.locator('[data-field="receptor"]', { hasText: 'Recibido por el comprador' }).waitFor({ timeout: 30_000 });
  assert.equal(await section.count(), 0, 'nothing to deliver again once the buyer received it');

  // The other tab still offers the action: the service refuses it, and the page says why in Spanish.
  await stale.page.locator('[data-section="redeliver"]').getByRole('button', { name: 'Reenviar al receptor' }).click();
  const alert = stale.page.locator('[role="alert"][data-code="CONFLICT"]');
  await alert.waitFor();
  assert.equal(await alert.locator('p').first().textContent(), 'No se puede hacer ahora: el estado actual no lo permite.');
  assert.equal(await alert.locator('[data-reason]').textContent(), 'Solo una entrega al comprador que terminó en error se puede repetir; esta está en «Recibido por el comprador».');
  await screenshot(stale.page, 'document-redeliver-conflict');

  assert.deepEqual(unexpectedProblems(first), []);
  assert.deepEqual(unexpectedProblems(stale, [409]), []);
});

test('B turns on the automatic rejection of e-CF DGII does not know from the Recibidos page, and the list shows DGII\'s answer', async () => {
  const w = await openPage(browser);
  pages.push(w);
  const { page } = w;
  await signIn(page, t.url, b.email, b.password);
  await page.goto(`${t.url}/dashboard/#/recibidos`);
  await heading(page, 'Documentos recibidos');
  const list = page.locator('[data-list="received"]');
  await list.waitFor();
  assert.equal(await list.locator('.badge[data-value="aceptado"]').first().textContent(), 'Aceptado por DGII');
  const section = page.locator('[data-section="receiver-settings"]');
  const box = section.getByLabel('Rechazar automáticamente los e-CF que DGII no conoce');
  await box.waitFor();
  assert.equal(await box.isChecked(), false);
  await box.check();
  await section.getByRole('button', { name: 'Guardar' }).click();
  await section.getByText('Guardado: se rechazarán los e-CF que DGII no conoce.').waitFor();
  assert.deepEqual(await seriousViolations(page), []);
  const saved = await call(t.url, 'GET', '/api/receptor/settings', { headers: { authorization: `Bearer ${b.accessToken}` } });
  assert.deepEqual(saved.body.data, { rechazarDesconocidosDgii: true });
  assert.deepEqual(unexpectedProblems(w), []);
});
