// "Nueva factura" in a real browser: a type 31 with two lines filled in the form (the buyer's
// check digit judged as typed, the name filled from DGII's directory, a 422 shown under its
// field), emitted with a double click, and found aceptado through the API with the totals the
// form showed, once; a type 32 without a buyer; a credit note started from the 31's page with
// its reference filled in; saved customers and items; desktop and phone layouts, with axe.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from './helpers/axe.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant, type Loose } from './helpers/http.ts';
import { heading, horizontalOverflow, launchBrowser, openPage, PHONE, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { startTestService, type TestService } from './helpers/service.ts';

type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;
let t: TestService;
let browser: Browser;
let a: Tenant;
let buyer: Awaited<ReturnType<typeof newTenant>>;
let invoiceId = '';
const pages: WatchedPage[] = [];
/** RNCs with DGII's check digit (modulus 11): the issuer, and a buyer that is also a tenant, so the simulator's directory lists it. */
const ISSUER_RNC = '131880681';
const BUYER_RNC = '101672919';

before(async () => {
  browser = await launchBrowser();
  t = await startTestService({ env: { ...FAST_PIPELINE, EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  a = await newTenantWithCertificate(t.url, { rnc: ISSUER_RNC });
  buyer = await newTenant(t.url, { rnc: BUYER_RNC });
  // Type 31 numbers from a registered range, which also gives its FechaVencimientoSecuencia.
  const range = await call(t.url, 'POST', '/TesteCF/secuencias', { json: { tipo: 31, desde: 'E310000000001', hasta: 'E310000000100', fechaVencimiento: '31-12-2030' }, headers: { 'x-api-key': a.apiKey } });
  assert.equal(range.status, 201, range.text);
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
});

async function open(viewport?: { width: number; height: number }): Promise<WatchedPage> {
  const w = await openPage(browser, viewport);
  pages.push(w);
  await signIn(w.page, t.url, a.email, a.password);
  return w;
}

async function newInvoice(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Nueva factura' }).click();
  await heading(page, 'Nueva factura');
}

/** Waits for the new document's page; an error the form shows instead fails with its words. */
async function emitted(page: Page, prefix: string): Promise<string> {
  const alert = page.locator('.invoice-status [role="alert"]');
  await Promise.race([heading(page, new RegExp(`^Documento ${prefix}`)), alert.waitFor()]);
  if (await alert.count() > 0) assert.fail(`the form answered: ${await alert.textContent()}`);
  return /#\/documentos\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
}

const line = (page: Page, n: number) => page.locator('fieldset.line').nth(n);
const shown = async (page: Page, field: string): Promise<string | null> => page.locator(`[data-list="invoice-totals"] [data-field="${field}"]`).getAttribute('data-value');
const documents = async (tipo: number): Promise<Loose[]> =>
  (await call(t.url, 'GET', `/TesteCF/documentos-ecf?tipo=${tipo}`, { headers: { 'x-api-key': a.apiKey } })).body.data.items as Loose[];

test('a type 31 with two lines is filled, checked as typed, emitted once with a double click, and accepted with the totals the form showed', async () => {
  const w = await open();
  const { page } = w;
  await newInvoice(page);
  assert.equal(await page.getByLabel('31 · Crédito Fiscal').isChecked(), true);

  // The check digit is judged as it is typed; the directory then gives the buyer's name.
  const rnc = page.getByLabel('RNC o cédula del comprador');
  await rnc.fill('101672918');
  await page.getByText('El dígito verificador no corresponde a un RNC').waitFor();
  assert.equal(await rnc.getAttribute('aria-invalid'), 'true');
  await rnc.fill(BUYER_RNC);
  const name = page.getByLabel('Nombre o razón social del comprador');
  await page.waitForFunction(() => (document.querySelector<HTMLInputElement>('input[name="razonSocialComprador"]')?.value ?? '') !== '');
  const listedName = (await call(t.url, 'GET', '/api/account', { headers: { authorization: `Bearer ${buyer.accessToken}` } })).body.data.tenant.name as string;
  assert.equal(await name.inputValue(), listedName, 'the name DGII\'s directory lists for the RNC');
  assert.equal(await rnc.getAttribute('aria-invalid'), null);
  await page.getByLabel('Correo del comprador').fill('compras@ejemplo.com.do');

  await line(page, 0).getByLabel('Descripción').fill('Laptop Dell Latitude 5440');
  await line(page, 0).getByLabel('Cantidad').fill('2');
  await line(page, 0).getByLabel('Precio unitario').fill('45,000.00');
  await page.getByRole('button', { name: 'Agregar línea' }).click();
  await line(page, 1).getByLabel('Descripción').fill('Instalación de red');
  await line(page, 1).getByLabel('Precio unitario').fill('3500');
  await line(page, 1).getByLabel('Descuento (RD$)').fill('350');
  await line(page, 1).getByLabel('ITBIS').selectOption({ label: 'ITBIS 16 %' });
  await line(page, 1).getByLabel('Bien o servicio').selectOption({ label: 'Servicio' });

  // Live totals: 90,000.00 at 18 % and 3,150.00 at 16 %.
  assert.equal(await line(page, 1).locator('[data-field="line-amount"]').getAttribute('data-value'), '3150.00');
  assert.equal(await shown(page, 'gravado-1'), '90000.00');
  assert.equal(await shown(page, 'itbis-1'), '16200.00');
  assert.equal(await shown(page, 'itbis-2'), '504.00');
  assert.equal(await shown(page, 'itbis-total'), '16704.00');
  assert.equal(await shown(page, 'total'), '109854.00');

  await page.getByLabel('Tipo de pago').selectOption({ label: 'Crédito' });
  await page.getByLabel('Forma de pago').selectOption({ label: 'Venta a crédito' });
  // A sale on credit names the day it falls due (DGII: TipoPago 2 needs FechaLimitePago).
  await page.getByLabel('Fecha límite de pago').fill(new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10));
  // DGII's TerminoPago allows letters, digits and spaces only: the server's 422 lands under the field.
  await page.getByLabel('Término de pago').fill('30 días!');
  await page.getByLabel('Dirección del emisor').fill('Av. Winston Churchill No. 1099, Santo Domingo');
  await page.getByRole('button', { name: 'Emitir' }).click();
  const termError = page.locator('.field:has(input[name="terminoPago"]) [data-error]');
  await termError.waitFor({ state: 'visible' });
  assert.notEqual((await termError.textContent())?.trim(), '');
  assert.equal(await page.getByLabel('Término de pago').getAttribute('aria-invalid'), 'true');
  assert.ok((await page.locator('[role="alert"] li strong').allTextContents()).includes('Término de pago'));
  assert.equal((await documents(31)).length, 0, 'nothing emitted');
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'invoice-31-error');

  await page.getByLabel('Término de pago').fill('30 días');
  await page.getByRole('button', { name: 'Guardar cliente' }).click();
  await page.getByText(/^Cliente Empresa \d+ SRL guardado\.$/).waitFor();
  await line(page, 0).getByRole('button', { name: 'Guardar artículo' }).click();
  await line(page, 0).getByText('Artículo «Laptop Dell Latitude 5440» guardado.').waitFor();
  await screenshot(page, 'invoice-31-1280');
  await page.getByRole('button', { name: 'Emitir' }).dblclick();
  await heading(page, /^Documento E31/);
  invoiceId = /#\/documentos\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
  assert.notEqual(invoiceId, '');

  const emits = w.requests.filter((r) => r.method === 'POST' && r.path === '/TesteCF/documentos-ecf');
  assert.equal(emits.length, 2, 'the 422 and the emission: the double click sent one request');
  const listed = await documents(31);
  assert.equal(listed.length, 1, 'one document for the double click');
  const doc = await waitForEstado(t.url, 'TesteCF', invoiceId, { 'x-api-key': a.apiKey }, ['aceptado']);
  assert.equal(doc.montoTotal, '109854.00');
  const totales = doc.document.ECF.Encabezado.Totales as Loose;
  assert.deepEqual([totales.MontoGravadoI1, totales.TotalITBIS1, totales.MontoGravadoI2, totales.TotalITBIS2, totales.TotalITBIS, totales.MontoTotal],
    ['90000.00', '16200.00', '3150.00', '504.00', '16704.00', '109854.00']);
  assert.equal(doc.document.ECF.Encabezado.Comprador.RNCComprador, BUYER_RNC);
  assert.equal(doc.document.ECF.Encabezado.IdDoc.FechaVencimientoSecuencia, '31-12-2030', 'from the registered range');
  assert.equal((doc.document.ECF.DetallesItems.Item as Loose[]).length, 2);
  await page.locator('.badge[data-value="aceptado"]').first().waitFor({ timeout: 20_000 });
  assert.deepEqual(unexpectedProblems(w, [422]), []);
});

test('a type 32 without a buyer is emitted and accepted', async () => {
  const w = await open();
  const { page } = w;
  await newInvoice(page);
  await page.getByLabel('32 · Consumo').check();
  // The issuer's address now comes from the last document issued.
  assert.equal(await page.getByLabel('Dirección del emisor').inputValue(), 'Av. Winston Churchill No. 1099, Santo Domingo');
  await line(page, 0).getByLabel('Descripción').fill('Arroz Selecto 10 lb');
  await line(page, 0).getByLabel('Cantidad').fill('3');
  await line(page, 0).getByLabel('Precio unitario').fill('425');
  await line(page, 0).getByLabel('ITBIS').selectOption({ label: 'Exento' });
  assert.equal(await shown(page, 'exento'), '1275.00');
  assert.equal(await shown(page, 'total'), '1275.00');
  // The preview opens the unsigned draft in a tab of its own; nothing is emitted.
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Vista previa (PDF)' }).click()]);
  await popup.waitForURL(/^blob:/);
  await popup.close();
  const drafts = w.requests.filter((r) => r.method === 'POST' && r.path === '/TesteCF/documentos-ecf/borrador/pdf');
  assert.equal(drafts.length, 1);
  assert.equal(drafts[0]?.status, 200);
  assert.equal((await documents(32)).length, 0);
  await page.getByRole('button', { name: 'Emitir' }).click();
  const id = await emitted(page, 'E32');
  const doc = await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['aceptado']);
  assert.equal(doc.tipo, 32);
  assert.equal(doc.montoTotal, '1275.00');
  assert.equal(doc.rncComprador, null);
  assert.deepEqual(doc.document.ECF.Encabezado.Comprador ?? {}, {}, 'no buyer data (DGII\'s XSD wants the element, empty)');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('a credit note starts from the document\'s page with its reference, lines and buyer filled in, and is accepted', async () => {
  assert.notEqual(invoiceId, '', 'the type 31 of the first test');
  const w = await open();
  const { page } = w;
  await page.goto(`${t.url}/dashboard/#/documentos/${invoiceId}`);
  await heading(page, /^Documento E31/);
  const encf = (await page.locator('h1').textContent())?.replace('Documento ', '') ?? '';
  await page.locator('[data-section="notes"]').getByRole('link', { name: 'Nota de crédito' }).click();
  await heading(page, `Nota de crédito de ${encf}`);
  assert.equal(await page.getByLabel('34 · Nota de Crédito').isChecked(), true);
  assert.equal(await page.getByLabel('NCF modificado', { exact: true }).inputValue(), encf);
  assert.match(await page.getByLabel('Fecha del NCF modificado').inputValue(), /^\d{4}-\d{2}-\d{2}$/);
  assert.equal(await page.getByLabel('RNC o cédula del comprador').inputValue(), BUYER_RNC);
  assert.equal(await page.locator('fieldset.line').count(), 2);
  // Credit one laptop only.
  await line(page, 1).getByRole('button', { name: 'Quitar' }).click();
  await line(page, 0).getByLabel('Cantidad').fill('1');
  await page.getByLabel('Razón de la modificación').fill('Devolución de una laptop');
  assert.equal(await shown(page, 'total'), '53100.00');
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'invoice-34-1280');
  await page.getByRole('button', { name: 'Emitir' }).click();
  const id = await emitted(page, 'E34');
  const doc = await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['aceptado']);
  assert.equal(doc.montoTotal, '53100.00');
  const ref = doc.document.ECF.InformacionReferencia as Loose;
  assert.equal(ref.NCFModificado, encf);
  assert.equal(ref.CodigoModificacion, '3');
  assert.equal(ref.RazonModificacion, 'Devolución de una laptop');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('a saved customer and item fill the form, and the saved list edits them', async () => {
  const w = await open();
  const { page } = w;
  await newInvoice(page);
  await page.getByLabel('RNC o cédula del comprador').fill(BUYER_RNC);
  await page.waitForFunction(() => (document.querySelector<HTMLInputElement>('input[name="correoComprador"]')?.value ?? '') !== '');
  assert.equal(await page.getByLabel('Correo del comprador').inputValue(), 'compras@ejemplo.com.do', 'the saved customer\'s e-mail');
  await line(page, 0).getByLabel('Descripción').fill('Laptop Dell Latitude 5440');
  await line(page, 0).getByLabel('Descripción').dispatchEvent('change');
  assert.equal(await line(page, 0).getByLabel('Precio unitario').inputValue(), '45000.00');
  assert.equal(await shown(page, 'total'), '53100.00');

  await page.getByRole('link', { name: 'Clientes y artículos guardados' }).click();
  await heading(page, 'Clientes y artículos guardados');
  await page.locator('table[data-list="saved-items"] tbody tr').first().waitFor();
  await page.getByRole('button', { name: 'Editar Laptop Dell Latitude 5440' }).click();
  const items = page.locator('form[data-form="saved-items"]');
  await items.getByLabel('Precio unitario').fill('44500');
  await items.getByRole('button', { name: 'Guardar' }).click();
  await page.getByText('Laptop Dell Latitude 5440 guardado.').waitFor();
  const saved = (await call(t.url, 'GET', '/api/articulos', { headers: { 'x-api-key': a.apiKey } })).body.data as Loose[];
  assert.deepEqual(saved.map((i) => [i.descripcion, i.precioUnitario, i.indicadorFacturacion]), [['Laptop Dell Latitude 5440', '44500.00', 1]]);
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'invoice-saved-1280');
  assert.deepEqual(unexpectedProblems(w), []);
});

test('the form fits a phone: one column, nothing scrolls sideways, no serious axe violation', async () => {
  const w = await open(PHONE);
  const { page } = w;
  await newInvoice(page);
  await page.getByRole('button', { name: 'Agregar línea' }).click();
  await line(page, 1).getByLabel('Descripción').fill('Cable de red categoría 6');
  const overflow = await horizontalOverflow(page);
  assert.ok(overflow.scrollWidth <= overflow.width, `scrolls sideways: ${JSON.stringify(overflow)}`);
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, 'invoice-360');
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.deepEqual(await seriousViolations(page), []);
  assert.deepEqual(unexpectedProblems(w), []);
});
