// The dashboard's documents in a real browser: filters, page size, keyset paging forward
// and back (and a late answer never drawn under the wrong page), environments, local dates;
// and every page at phone width (360 px).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Request } from 'playwright-core';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant } from './helpers/http.ts';
import { DESKTOP, heading, horizontalOverflow, launchBrowser, listedEstados, openPage, openSettings, PHONE, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { seriousViolations } from './helpers/axe.ts';
import { PdfTools } from './helpers/pdf-tools.ts';
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

async function open(viewport: { width: number; height: number } = DESKTOP, timezoneId?: string): Promise<WatchedPage> {
  const w = await openPage(browser, viewport, timezoneId);
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
    assert.equal(await page.locator('.pager').count(), 0, 'one page: no pager with two disabled buttons');
    await page.getByLabel('Estado').selectOption('rechazado');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('No hay documentos con estos filtros en este ambiente.').waitFor();
    await screenshot(page, 'documents-filtered-empty');

    // Dates go to the API as yyyy-MM-dd from the browser's date inputs.
    await page.getByRole('button', { name: 'Limpiar' }).click();
    await rows(page, 'documents', 12);
    const issued = await page.locator('table[data-list="documents"] tbody tr td[data-label="Emisión"]').first().locator('time').getAttribute('datetime') ?? '';
    assert.match(issued, /^\d{4}-\d\d-\d\d$/);
    await page.getByLabel('Emitidos desde').fill(issued);
    await page.getByLabel('Emitidos hasta').fill(issued);
    await page.$eval('table[data-list="documents"]', (table) => table.setAttribute('data-stale', ''));
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.locator('table[data-list="documents"]:not([data-stale])').waitFor();
    assert.match(page.url(), /desde=\d{4}-\d\d-\d\d&hasta=\d{4}-\d\d-\d\d/);
    assert.equal(Object.keys(await listedEstados(page)).length, 12, 'the day they were issued holds all of them');
    // The picker offers only the dates the API takes: from 2000-01-01 to a year from today.
    const now = new Date();
    const latest = new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), now.getUTCDate())).toISOString().slice(0, 10);
    for (const label of ['Emitidos desde', 'Emitidos hasta']) {
      assert.equal(await page.getByLabel(label).getAttribute('min'), '2000-01-01');
      assert.equal(await page.getByLabel(label).getAttribute('max'), latest);
    }
    // A day after every document, within the dates a query may name (up to a year from today).
    await page.getByLabel('Emitidos desde').fill(new Date(Date.now() + 300 * 86_400_000).toISOString().slice(0, 10));
    await page.getByLabel('Emitidos hasta').fill('');
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

  test('dates show in the reader\'s time zone, DGII\'s own dates included', async () => {
    const a = await newTenantWithCertificate(t.url);
    const doc = await emit(a.apiKey, a.rnc);
    const detail = await waitForEstado(t.url, 'TesteCF', doc.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado']);
    // A reader in Madrid: DGII's times (Dominican clock, UTC−4) must move, its dates must not.
    const zone = 'Europe/Madrid';
    const w = await open(DESKTOP, zone);
    await signIn(w.page, t.url, a.email, a.password);
    const cell = w.page.locator('table[data-list="documents"] td[data-label="Actualizado"] time').first();
    await cell.waitFor();
    const iso = await cell.getAttribute('datetime');
    // dd-mm-aaaa HH:mm:ss on the reader's clock.
    const dateTime = { format: (d: Date) => { const p = Object.fromEntries(new Intl.DateTimeFormat('en-GB', { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone: zone }).formatToParts(d).map((x) => [x.type, x.value])); return `${p.day}-${p.month}-${p.year} ${p.hour}:${p.minute}:${p.second}`; } };
    assert.match(await cell.textContent() ?? '', /^\d\d-\d\d-\d{4} \d\d:\d\d:\d\d$/);
    assert.equal(await cell.textContent(), dateTime.format(new Date(iso as string)));

    const [d, m, y] = (detail.fechaEmision as string).split('-').map(Number) as [number, number, number];
    const day = `${String(d).padStart(2, '0')}-${String(m).padStart(2, '0')}-${y}`;
    assert.equal(await w.page.locator('table[data-list="documents"] td[data-label="Emisión"]').first().textContent(), day, 'dd-mm-aaaa');

    await w.page.getByRole('link', { name: doc.encf }).click();
    await heading(w.page, `Documento ${doc.encf}`);
    const signed = w.page.locator('[data-field="signedAt"] time');
    await signed.waitFor();
    const [date, clock] = (detail.fechaHoraFirma as string).split(' ') as [string, string];
    const [sd, sm, sy] = date.split('-');
    const instant = new Date(`${sy}-${sm}-${sd}T${clock}-04:00`);
    assert.equal(await signed.getAttribute('datetime'), `${sy}-${sm}-${sd}T${clock}-04:00`);
    assert.equal(await signed.textContent(), dateTime.format(instant));
    // The buyer leg: this buyer is no tenant, so the directory does not list it.
    assert.match(await w.page.locator('[data-field="receptor"]').textContent() ?? '', /^(Pendiente|No aplica)$/);
    assert.equal(await w.page.locator('[data-field="aprobacion"]').textContent(), 'Sin respuesta del comprador');
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('switching environment on a document goes to that environment\'s list; the switcher shows only with documents', async () => {
    const a = await newTenantWithCertificate(t.url);
    const testDoc = await emit(a.apiKey, a.rnc);
    const certDoc = await emit(a.apiKey, a.rnc, 31, 'CerteCF');
    const w = await open();
    const { page } = w;
    await signIn(page, t.url, a.email, a.password);
    await page.getByRole('link', { name: testDoc.encf }).click();
    await heading(page, `Documento ${testDoc.encf}`);
    await page.getByLabel('Ambiente').selectOption('CerteCF');
    await heading(page, 'Documentos');
    assert.match(page.url(), /#\/documentos$/);
    await page.getByRole('link', { name: certDoc.encf }).waitFor();
    assert.match(await page.locator('.lead').textContent() ?? '', /CerteCF/);
    assert.equal(await page.getByRole('alert').count(), 0, 'no "not found"');

    await openSettings(page, 'Webhooks');
    await heading(page, 'Webhooks');
    assert.equal(await page.getByLabel('Ambiente').isHidden(), true, 'webhooks are not per environment');
    await openSettings(page, 'Claves API');
    assert.equal(await page.getByLabel('Ambiente').isHidden(), true);
    await page.getByRole('link', { name: 'Documentos' }).click();
    // isVisible() does not wait: the list page is drawn first (it raced the click once in CI).
    await heading(page, 'Documentos');
    await page.getByLabel('Ambiente').waitFor({ state: 'visible' });
    assert.equal(await page.getByLabel('Ambiente').isVisible(), true);
    assert.equal(await page.getByLabel('Ambiente').inputValue(), 'CerteCF');
    assert.deepEqual(unexpectedProblems(w), []);
  });
});

describe('paging while the list refreshes itself', () => {
  test('a background refresh answering after Siguiente is not drawn under Página 2', async () => {
    // Without workers every document stays recibido, so the list keeps refreshing page 1.
    const idle = await startTestService({ env: { ...FAST_PIPELINE, WORKERS_ENABLED: 'false' } });
    closers.push(() => idle.close());
    const a = await newTenant(idle.url);
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await call(idle.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, 31), headers: { 'x-api-key': a.apiKey } });
      assert.equal(res.status, 202, res.text);
      made.push(res.body.data.encf);
    }
    const newestFirst = made.reverse();
    const w = await open();
    const { page } = w;
    await signIn(page, idle.url, a.email, a.password);
    await page.goto(`${idle.url}/dashboard/#/documentos?pageSize=10`);
    await rows(page, 'documents', 10);
    assert.deepEqual(Object.keys(await listedEstados(page)), newestFirst.slice(0, 10));

    // Hold the next refresh of page 1 (no cursor) until page 2 is on screen.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held: Request | null = null;
    const caught = new Promise<Request>((resolve) => {
      void page.route(/\/TesteCF\/documentos-ecf\?/, async (route) => {
        if (held === null && !route.request().url().includes('cursor=')) {
          held = route.request();
          resolve(held);
          await released;
        }
        await route.continue().catch(() => undefined); // the page may have cancelled it
      });
    });
    const stale = await caught;
    const settled = new Promise<void>((resolve) => {
      const done = (r: Request): void => { if (r === stale) resolve(); };
      page.on('requestfinished', done);
      page.on('requestfailed', done);
    });
    await page.getByRole('button', { name: 'Siguiente →' }).click();
    await page.locator('.page-number', { hasText: 'Página 2' }).waitFor();
    await rows(page, 'documents', 2);
    release();
    await settled;
    // Long enough for an answer that was let through to be parsed and drawn, and two frames
    // painted after that.
    await page.waitForTimeout(500);
    await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
    assert.equal(await page.locator('.page-number').textContent(), 'Página 2');
    assert.deepEqual(Object.keys(await listedEstados(page)), newestFirst.slice(10), 'still page 2\'s documents');
    await page.unroute(/\/TesteCF\/documentos-ecf\?/);
    // The list keeps refreshing the page it shows.
    const before = w.requests.length;
    await waitFor(async () => w.requests.slice(before).some((r) => r.url.includes('cursor=')), 10_000, 'a refresh of page 2');
    assert.deepEqual(Object.keys(await listedEstados(page)), newestFirst.slice(10));
    assert.deepEqual(unexpectedProblems(w), []);
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
    // The header leaves the screen to the page: two short rows, not a quarter of it.
    const header = await page.locator('header').boundingBox();
    assert.ok(header !== null && header.height <= 100, `header height ${header?.height}`);
    await page.getByRole('link', { name: doc.encf }).click();
    await page.locator('table[data-list="history"]').waitFor();
    await check('document-detail');
    await openSettings(page, 'Claves API');
    await page.locator('table[data-list="keys"]').waitFor();
    await check('api-keys');
    await openSettings(page, 'Certificado');
    await page.locator('table[data-list="certificates"]').waitFor();
    await check('certificate');
    await openSettings(page, 'Entregas');
    await page.getByText('No hay entregas con estos filtros.').waitFor();
    await check('deliveries-empty');
    await openSettings(page, 'Webhooks');
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
    await page.getByRole('navigation', { name: 'Configuración' }).getByRole('link', { name: 'Entregas' }).click();
    await page.locator('table[data-list="deliveries"]').waitFor();
    await check('deliveries');
    assert.deepEqual(unexpectedProblems(w), []);
  });
});

describe('printed representation', () => {
  test('Descargar PDF saves {RNCEmisor}{eNCF}.pdf and Imprimir opens the PDF in a tab of its own', async () => {
    const a = await newTenantWithCertificate(t.url);
    const doc = await emit(a.apiKey, a.rnc);
    await waitForEstado(t.url, 'TesteCF', doc.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado']);
    const w = await open();
    const { page } = w;
    await signIn(page, t.url, a.email, a.password);
    await page.getByRole('link', { name: doc.encf }).click();
    await heading(page, `Documento ${doc.encf}`);

    const direct = await fetch(`${t.url}/TesteCF/documentos-ecf/${doc.internalTrackId}/pdf`, { headers: { 'x-api-key': a.apiKey } });
    const expected = Buffer.from(await direct.arrayBuffer());
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar PDF' }).click()]);
    assert.equal(download.suggestedFilename(), `${a.rnc}${doc.encf}.pdf`);
    assert.deepEqual(Buffer.concat(await (await download.createReadStream()).toArray()), expected);

    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Imprimir' }).click()]);
    await waitFor(async () => popup.url().startsWith('blob:'), 10_000, 'the tab shows the PDF');
    // The page's CSP lets it fetch only its own origin, so the tab's URL is what can be checked.
    assert.ok(popup.url().startsWith(`blob:${new URL(t.url).origin}/`), popup.url());
    await popup.close();
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('a rejected e-CF is offered for printing only with its RECHAZADO mark, said beside the buttons; axe finds nothing serious', async () => {
    const a = await newTenantWithCertificate(t.url);
    const body = ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc, InformacionAdicionalEmisor: '[simulador:rechazar]' } } });
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers: { 'x-api-key': a.apiKey } });
    assert.equal(res.status, 202, res.text);
    const doc = res.body.data as { internalTrackId: string; encf: string };
    await waitForEstado(t.url, 'TesteCF', doc.internalTrackId, { 'x-api-key': a.apiKey }, ['rechazado']);
    const w = await open();
    const { page } = w;
    await signIn(page, t.url, a.email, a.password);
    await page.getByRole('link', { name: doc.encf }).click();
    await heading(page, `Documento ${doc.encf}`);

    assert.equal(await page.getByRole('button', { name: 'Imprimir', exact: true }).count(), 0, 'no plain Imprimir');
    assert.equal(await page.getByRole('button', { name: 'Descargar PDF', exact: true }).count(), 0, 'no plain Descargar PDF');
    assert.match(await page.locator('[data-field="printMark"]').textContent() ?? '', /RECHAZADO — sin validez fiscal/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar PDF marcado RECHAZADO' }).click()]);
    const tools = new PdfTools();
    try {
      const text = tools.text(Buffer.concat(await (await download.createReadStream()).toArray()));
      assert.ok(text.includes('RECHAZADO — sin validez fiscal'), text);
    } finally {
      tools.close();
    }
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Imprimir marcado RECHAZADO' }).click()]);
    await waitFor(async () => popup.url().startsWith('blob:'), 10_000, 'the tab shows the PDF');
    await popup.close();
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(unexpectedProblems(w), []);
  });
});
