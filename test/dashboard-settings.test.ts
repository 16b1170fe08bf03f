// The dashboard's Configuración in a real browser: webhooks to a loopback receiver (URL, the
// secret shown once, a test delivery, all of it by keyboard too), and the deliveries log:
// what each is about, its failed filter, paging and redelivery. API keys and the signing
// certificate are in dashboard-credentials.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, heading, launchBrowser, openPage, openSettings, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant } from './helpers/http.ts';
import { startReceiver, verifySignature, type Answer, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestService;
let browser: Browser;
const pages: WatchedPage[] = [];
const receivers: Receiver[] = [];

before(async () => {
  // The browser first: without one the file fails at once instead of leaving a service running.
  browser = await launchBrowser();
  t = await startTestService({
    // Automatic retries are far away, so every attempt a test sees is one it asked for.
    // A dozen test webhooks in a row would pass the sensitive scope's 10 a minute.
    env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_DELAYS_MS: '600000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' },
  });
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  for (const r of receivers) await r.close();
  await browser?.close();
  await t?.close();
});

async function receiver(respond: (index: number) => Answer): Promise<Receiver> {
  const r = await startReceiver({ respond: (_req, i) => respond(i) });
  receivers.push(r);
  return r;
}

async function signedIn(tenant: Awaited<ReturnType<typeof newTenant>> | null = null): Promise<{ w: WatchedPage; page: Page; tenant: Awaited<ReturnType<typeof newTenant>> }> {
  tenant ??= await newTenant(t.url);
  const w = await openPage(browser, DESKTOP);
  pages.push(w);
  await signIn(w.page, t.url, tenant.email, tenant.password);
  return { w, page: w.page, tenant };
}

/** The status badges of the deliveries table. */
function listedStatuses(page: Page): Promise<string[]> {
  return page.$$eval('table[data-list="deliveries"] tbody .badge', (b) => b.map((x) => x.getAttribute('data-value') ?? ''));
}

describe('webhooks', () => {
  test('a loopback receiver is configured, the secret is shown once, and a test webhook arrives signed', async () => {
    const r = await receiver(() => ({ status: 200, body: 'recibido' }));
    const { w, page } = await signedIn();
    await openSettings(page, 'Webhooks');
    await heading(page, 'Webhooks');
    assert.match(page.url(), /#\/configuracion\/webhooks$/, 'Settings → Webhooks');
    assert.equal(await page.getByRole('button', { name: 'Enviar webhook de prueba' }).isDisabled(), true, 'no URL yet');
    await page.getByText('Todavía no hay secreto').waitFor();

    await page.getByLabel('URL del receptor').fill(r.url);
    await page.getByRole('button', { name: 'Guardar URL' }).click();
    await page.getByText('URL guardada.').waitFor();
    await page.getByRole('button', { name: 'Generar secreto' }).click();
    const secret = await page.locator('#webhook-secret').inputValue();
    assert.match(secret, /^whsec_/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'webhook-secret', 'the new secret has the focus, ready to copy');
    await page.getByText('Hay un secreto configurado.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Rotar secreto' }).count(), 1);
    await page.getByRole('button', { name: 'Copiar' }).click();
    await page.locator('.copy-status').filter({ hasText: /Copiado|Seleccionado/ }).waitFor();

    await page.getByRole('button', { name: 'Enviar webhook de prueba' }).click();
    const result = page.locator('[data-test-result]');
    await result.waitFor();
    assert.equal(await result.getAttribute('data-test-result'), 'ok');
    assert.match(await result.textContent() ?? '', /El receptor respondió 200/);
    assert.match(await result.textContent() ?? '', /recibido/, 'the receiver\'s answer is shown');
    await screenshot(page, 'webhooks');
    assert.equal(r.received.length, 1);
    assert.equal(r.received[0]?.json.event, 'webhook.test');
    assert.ok(verifySignature(secret, r.received[0]?.raw as Buffer, r.received[0]?.headers['x-ecf-signature'] as string), 'signed with the secret the page showed');

    await page.getByRole('link', { name: 'Ver la entrega y sus intentos →' }).click();
    await heading(page, 'Entrega');
    await rows(page, 'attempts', 1);
    assert.deepEqual(await page.$$eval('table[data-list="attempts"] .badge', (b) => b.map((x) => x.getAttribute('data-value'))), ['ok']);
    // The exact bytes sent (compact JSON), not a re-indented copy.
    assert.match(await page.locator('pre.response').last().textContent() ?? '', /^\{"event":"webhook.test",/);
    await screenshot(page, 'delivery-detail');

    // Shown once: after a reload the page knows a secret exists but not its value. (The
    // first version's address still leads here.)
    await page.goto(`${t.url}/dashboard/#/webhooks`);
    await page.waitForURL(/#\/configuracion\/webhooks$/);
    await page.getByText('Hay un secreto configurado.').waitFor();
    assert.equal(await page.locator('#webhook-secret').count(), 0);
    assert.equal(await page.getByLabel('URL del receptor').inputValue(), r.url);

    // Rotating asks first; cancelling keeps the secret.
    await page.getByRole('button', { name: 'Rotar secreto' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await screenshot(page, 'webhooks-rotate-confirm');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.locator('#webhook-secret').count(), 0);
    await page.getByRole('button', { name: 'Rotar secreto' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotar secreto' }).click();
    const rotated = await page.locator('#webhook-secret').inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page.getByText('El secreto anterior sigue firmando hasta').waitFor();
    await page.getByRole('button', { name: 'Enviar webhook de prueba' }).click();
    await waitFor(async () => r.received.length === 2, 5000, 'second test');
    // During the overlap both secrets sign, the new one first.
    const [first, previous] = String(r.received[1]?.headers['x-ecf-signature']).split(',').map((v) => v.trim());
    assert.ok(verifySignature(rotated, r.received[1]?.raw as Buffer, first), 'signed with the rotated secret the page showed');
    assert.ok(verifySignature(secret, r.received[1]?.raw as Buffer, previous), 'and still with the previous one');
    // Shown once here too.
    await page.reload();
    await page.getByText('El secreto anterior sigue firmando hasta').waitFor();
    assert.equal(await page.locator('#webhook-secret').count(), 0);

    // A leaked secret is replaced at once: the previous one stops signing.
    await page.getByRole('button', { name: 'Reemplazar de inmediato' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reemplazar secreto' }).click();
    const replaced = await page.locator('#webhook-secret').inputValue();
    assert.notEqual(replaced, rotated);
    await page.getByRole('button', { name: 'Enviar webhook de prueba' }).click();
    await waitFor(async () => r.received.length === 3, 5000, 'third test');
    assert.ok(verifySignature(replaced, r.received[2]?.raw as Buffer, r.received[2]?.headers['x-ecf-signature'] as string));
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('a refused URL is explained with the server\'s details', async () => {
    const { w, page } = await signedIn();
    await page.goto(`${t.url}/dashboard/#/configuracion/webhooks`);
    await page.getByLabel('URL del receptor').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Guardar URL' }).click();
    const alert = page.locator('[role="alert"][data-code="VALIDATION_ERROR"]');
    await alert.waitFor();
    assert.equal(await alert.locator('li').getAttribute('data-path'), 'webhookUrl');
    assert.equal(await alert.textContent(), 'Revise los datos:URL del receptor: debe empezar por https:// o http://.');
    assert.deepEqual(unexpectedProblems(w, [422]), []);
  });

  test('failed deliveries are found under Fallidas, show their attempts, and can be redelivered', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? { status: 200, body: 'ok' } : { status: 500, body: 'receptor caído' }));
    const { w, page, tenant } = await signedIn();
    const auth = { authorization: `Bearer ${tenant.accessToken}` };
    assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: r.url }, headers: auth })).status, 200);

    await openSettings(page, 'Webhooks');
    await page.getByRole('button', { name: 'Enviar webhook de prueba' }).click();
    const result = page.locator('[data-test-result]');
    await result.waitFor();
    assert.equal(await result.getAttribute('data-test-result'), 'failed');
    assert.match(await result.textContent() ?? '', /El envío falló: el receptor respondió 500\./);
    assert.doesNotMatch(await result.textContent() ?? '', /receiver answered/, 'the service\'s English is reworded');
    assert.equal(await result.locator('.badge').getAttribute('data-value'), 'retrying');
    await screenshot(page, 'webhooks-test-failed');
    // One more that succeeds, so the filters have something to tell apart.
    healthy = true;
    assert.equal((await call(t.url, 'POST', '/api/webhooks/test', { json: {}, headers: auth })).body.data.attempt.ok, true);
    healthy = false;

    await openSettings(page, 'Entregas');
    await heading(page, 'Entregas de webhooks');
    await rows(page, 'deliveries', 2);
    // Pending after a failed attempt is being retried, and says so.
    assert.deepEqual(await listedStatuses(page), ['delivered', 'retrying']);
    assert.deepEqual(await page.$$eval('table[data-list="deliveries"] tbody .badge', (b) => b.map((x) => x.textContent)), ['Entregada', 'Reintentando']);
    await page.getByLabel('Estado').selectOption('failed');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await rows(page, 'deliveries', 1);
    assert.deepEqual(await listedStatuses(page), ['retrying']);
    const failedRow = await page.locator('table[data-list="deliveries"] tbody tr').textContent() ?? '';
    assert.match(failedRow, /Prueba de webhook.*el receptor respondió 500/);
    await screenshot(page, 'deliveries-failed');
    await page.getByLabel('Estado').selectOption('abandoned');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('No hay entregas con estos filtros.').waitFor();
    await page.getByLabel('Estado').selectOption('failed');
    await page.getByLabel('Por página').selectOption('10');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await rows(page, 'deliveries', 1);
    assert.match(page.url(), /status=failed&pageSize=10/);

    await page.locator('table[data-list="deliveries"] a').click();
    await heading(page, 'Entrega');
    await rows(page, 'attempts', 1);
    assert.match(await page.locator('table[data-list="attempts"]').textContent() ?? '', /Falló.*500.*el receptor respondió 500.*receptor caído/s);
    assert.equal(await page.locator('.facts .badge').getAttribute('data-value'), 'retrying');
    assert.equal(await page.locator('[data-field="subject"]').textContent(), 'Prueba de conexión enviada desde el panel');

    healthy = true;
    await page.getByRole('button', { name: 'Reenviar ahora' }).click();
    await page.getByText(/Reenviada\.|Reenvío iniciado/).waitFor();
    // The page follows the new attempt by itself.
    await rows(page, 'attempts', 2);
    await page.locator('.facts .badge[data-value="delivered"]').waitFor();
    assert.deepEqual(await page.$$eval('table[data-list="attempts"] .badge', (b) => b.map((x) => x.getAttribute('data-value'))), ['failed', 'ok']);
    await screenshot(page, 'delivery-redelivered');
    assert.equal(r.received.length, 3);
    await page.getByRole('link', { name: '← Volver a entregas' }).click();
    await page.getByText('No hay entregas con estos filtros.').waitFor();
    assert.match(page.url(), /status=failed/, 'back to the filtered list');
    assert.deepEqual(unexpectedProblems(w), []);
  });
});

describe('deliveries log', () => {
  test('each row says which document and estado it is about, and more than a page is paged', async () => {
    const r = await receiver(() => ({ status: 200, body: 'ok' }));
    const tenant = await newTenantWithCertificate(t.url);
    const auth = { authorization: `Bearer ${tenant.accessToken}` };
    assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: r.url }, headers: auth })).status, 200);
    const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc, 31), headers: { 'x-api-key': tenant.apiKey } });
    assert.equal(emitted.status, 202, emitted.text);
    const { encf, internalTrackId } = emitted.body.data as { encf: string; internalTrackId: string };
    await waitForEstado(t.url, 'TesteCF', internalTrackId, { 'x-api-key': tenant.apiKey }, ['aceptado']);
    // recibido, en_proceso, aceptado and the buyer leg: one delivery each, then nine tests make thirteen.
    await waitFor(async () => (await call(t.url, 'GET', '/api/webhooks/deliveries?event=ecf.status_update&status=delivered', { headers: auth })).body.data.items.length === 3, 10_000, 'status deliveries');
    // The accepted e-CF's buyer leg ends too (no_aplica: the buyer is in no directory), before the tests.
    await waitFor(async () => (await call(t.url, 'GET', '/api/webhooks/deliveries?event=ecf.receptor_update', { headers: auth })).body.data.items.length === 1, 10_000, 'the buyer leg\'s delivery');
    for (let i = 0; i < 9; i++) assert.equal((await call(t.url, 'POST', '/api/webhooks/test', { json: {}, headers: auth })).status, 200);

    const { w, page } = await signedIn(tenant);
    // The list's items say what each delivery is about: the page reads no delivery for that.
    const listReads: string[] = [];
    const detailReads: string[] = [];
    page.on('request', (req) => {
      const path = new URL(req.url()).pathname;
      if (path === '/api/webhooks/deliveries') listReads.push(req.url());
      else if (path.startsWith('/api/webhooks/deliveries/')) detailReads.push(path);
    });
    await page.goto(`${t.url}/dashboard/#/configuracion/entregas?pageSize=10`);
    await rows(page, 'deliveries', 10);
    assert.equal(await page.locator('.page-number').textContent(), 'Página 1');
    const links = () => page.$$eval('table[data-list="deliveries"] tbody td:first-child a', (a) => a.map((x) => x.textContent));
    // The buyer leg's delivery is named by the eNCF and the leg's state, its kind under it.
    assert.deepEqual(await links(), [...Array(9).fill('Prueba de webhook'), `${encf} · No aplica`]);
    assert.match(await page.locator('table[data-list="deliveries"] tbody tr').last().textContent() ?? '', /Entrega de un e-CF al comprador/);
    await screenshot(page, 'deliveries');

    await page.getByRole('button', { name: 'Siguiente →' }).click();
    await page.locator('.page-number', { hasText: 'Página 2' }).waitFor();
    await rows(page, 'deliveries', 3);
    assert.deepEqual(await links(), [`${encf} · Aceptado`, `${encf} · En proceso`, `${encf} · Recibido`]);
    assert.match(await page.locator('table[data-list="deliveries"] tbody tr').first().textContent() ?? '', /Cambio de estado de un e-CF/);
    assert.equal(await page.getByRole('button', { name: 'Siguiente →' }).isDisabled(), true);
    await page.getByRole('button', { name: '← Anterior' }).click();
    await page.locator('.page-number', { hasText: 'Página 1' }).waitFor();
    await rows(page, 'deliveries', 10);
    assert.ok(listReads.length >= 3, `the list was read for each page: ${listReads.length}`);
    assert.deepEqual(detailReads, [], 'no delivery was read to name the rows');

    await page.getByRole('button', { name: 'Siguiente →' }).click();
    await page.locator('.page-number', { hasText: 'Página 2' }).waitFor();
    await page.getByRole('link', { name: `${encf} · Aceptado` }).click();
    await heading(page, 'Entrega');
    assert.equal(await page.locator('[data-field="subject"]').textContent(), `${encf} · Aceptado`);
    assert.deepEqual(unexpectedProblems(w), []);
  });
});

describe('keyboard', () => {
  test('the webhook settings are completed with the keyboard alone', async () => {
    const r = await receiver(() => ({ status: 204 }));
    const { w, page } = await signedIn();
    const focused = () => page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { tag: el?.tagName ?? '', id: el?.id ?? '', text: el?.textContent?.trim() ?? '', name: el?.getAttribute('name') ?? '' };
    });
    const tabTo = async (want: (f: Awaited<ReturnType<typeof focused>>) => boolean, what: string, key = 'Tab'): Promise<void> => {
      for (let i = 0; i < 25; i++) {
        await page.keyboard.press(key);
        if (want(await focused())) return;
      }
      assert.fail(`Tab never reached ${what}`);
    };
    // Back from the page's heading to the header: Configuración is a link like any other.
    await tabTo((f) => f.tag === 'A' && f.text === 'Configuración', 'Configuración', 'Shift+Tab');
    await page.keyboard.press('Enter');
    await heading(page, 'Webhooks');
    assert.equal((await focused()).id, 'page-title');
    await tabTo((f) => f.name === 'webhookUrl', 'the URL field');
    await page.keyboard.type(r.url);
    await page.keyboard.press('Enter');
    await page.getByText('URL guardada.').waitFor();
    await tabTo((f) => f.text === 'Generar secreto', 'Generar secreto');
    await page.keyboard.press('Enter');
    await page.locator('#webhook-secret').waitFor();
    assert.equal((await focused()).id, 'webhook-secret');
    await tabTo((f) => f.text === 'Copiar', 'Copiar');
    await page.keyboard.press('Enter');
    await page.locator('.copy-status').filter({ hasText: /Copiado|Seleccionado/ }).waitFor();
    await tabTo((f) => f.text === 'Enviar webhook de prueba', 'the test button');
    await page.keyboard.press('Enter');
    await page.locator('[data-test-result="ok"]').waitFor();
    assert.equal(r.received.length, 1);
    assert.equal((await focused()).text, 'Enviar webhook de prueba', 'the focus stays on the button it was on');
    await tabTo((f) => f.text === 'Ver la entrega y sus intentos →', 'the delivery link');
    await page.keyboard.press('Enter');
    await heading(page, 'Entrega');
    assert.deepEqual(unexpectedProblems(w), []);
  });
});
