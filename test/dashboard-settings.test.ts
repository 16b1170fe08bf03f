// The dashboard's settings in a real browser: webhooks to a loopback receiver (URL, the
// secret shown once, a test delivery), the deliveries log with its failed filter and
// redelivery, and API keys (shown once, revoked after a confirmation).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, heading, launchBrowser, openPage, rows, screenshot, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
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
    env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_DELAYS_MS: '600000' },
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

async function signedIn(): Promise<{ w: WatchedPage; page: Page; tenant: Awaited<ReturnType<typeof newTenant>> }> {
  const tenant = await newTenant(t.url);
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
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await heading(page, 'Configuración de webhooks');
    assert.equal(await page.getByRole('button', { name: 'Enviar webhook de prueba' }).isDisabled(), true, 'no URL yet');
    await page.getByText('Todavía no hay secreto').waitFor();

    await page.getByLabel('URL del receptor').fill(r.url);
    await page.getByRole('button', { name: 'Guardar URL' }).click();
    await page.getByText('URL guardada.').waitFor();
    await page.getByRole('button', { name: 'Generar secreto' }).click();
    const secret = await page.locator('#webhook-secret').inputValue();
    assert.match(secret, /^whsec_/);
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
    assert.match(await page.locator('pre.response').last().textContent() ?? '', /"event": "webhook.test"/);
    await screenshot(page, 'delivery-detail');

    // Shown once: after a reload the page knows a secret exists but not its value.
    await page.goto(`${t.url}/dashboard/#/webhooks`);
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
    assert.notEqual(rotated, secret);
    await page.getByRole('button', { name: 'Enviar webhook de prueba' }).click();
    await waitFor(async () => r.received.length === 2, 5000, 'second test');
    assert.ok(verifySignature(rotated, r.received[1]?.raw as Buffer, r.received[1]?.headers['x-ecf-signature'] as string));
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('a refused URL is explained with the server\'s details', async () => {
    const { w, page } = await signedIn();
    await page.goto(`${t.url}/dashboard/#/webhooks`);
    await page.getByLabel('URL del receptor').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Guardar URL' }).click();
    const alert = page.locator('[role="alert"][data-code="VALIDATION_ERROR"]');
    await alert.waitFor();
    assert.equal(await alert.locator('li code').first().textContent(), 'webhookUrl');
    assert.deepEqual(unexpectedProblems(w, [422]), []);
  });

  test('failed deliveries are found under Fallidas, show their attempts, and can be redelivered', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? { status: 200, body: 'ok' } : { status: 500, body: 'receptor caído' }));
    const { w, page, tenant } = await signedIn();
    const auth = { authorization: `Bearer ${tenant.accessToken}` };
    assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: r.url }, headers: auth })).status, 200);

    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('button', { name: 'Enviar webhook de prueba' }).click();
    const result = page.locator('[data-test-result]');
    await result.waitFor();
    assert.equal(await result.getAttribute('data-test-result'), 'failed');
    assert.match(await result.textContent() ?? '', /500/);
    await screenshot(page, 'webhooks-test-failed');
    // One more that succeeds, so the filters have something to tell apart.
    healthy = true;
    assert.equal((await call(t.url, 'POST', '/api/webhooks/test', { json: {}, headers: auth })).body.data.attempt.ok, true);
    healthy = false;

    await page.getByRole('link', { name: 'Entregas', exact: true }).click();
    await heading(page, 'Entregas de webhooks');
    await rows(page, 'deliveries', 2);
    assert.deepEqual(await listedStatuses(page), ['delivered', 'pending']);
    await page.getByLabel('Estado').selectOption('failed');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await rows(page, 'deliveries', 1);
    assert.deepEqual(await listedStatuses(page), ['pending']);
    assert.match(await page.locator('table[data-list="deliveries"] tbody tr').textContent() ?? '', /500/);
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
    assert.match(await page.locator('table[data-list="attempts"]').textContent() ?? '', /Falló.*500.*receptor caído/s);

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

describe('API keys', () => {
  test('a key is created and shown once, works at once, and is revoked after a confirmation', async () => {
    const { w, page, tenant } = await signedIn();
    await page.getByRole('link', { name: 'Claves API' }).click();
    await heading(page, 'Claves API');
    await rows(page, 'keys', 1);

    await page.getByLabel('Nombre').fill('ERP de pruebas');
    await page.getByRole('button', { name: 'Crear clave' }).click();
    const key = await page.locator('#new-api-key').inputValue();
    assert.match(key, /^ecf_sk_/);
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

    await row.getByRole('button', { name: 'Revocar la clave ERP de pruebas' }).click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.textContent() ?? '', /ERP de pruebas/);
    await screenshot(page, 'api-keys-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revocar clave' }).click();
    await page.getByText('Clave «ERP de pruebas» revocada.').waitFor();
    await page.locator('table[data-list="keys"] tbody tr', { hasText: 'ERP de pruebas' }).locator('.badge[data-value="revoked"]').waitFor();
    assert.equal((await use()).status, 403);
    assert.equal((await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: { 'x-api-key': tenant.apiKey } })).status, 200, 'the other key still works');
    await screenshot(page, 'api-keys-revoked');
    assert.deepEqual(unexpectedProblems(w), []);
  });
});
