// The e-CF e-mailed to its buyer and the tenant's logo in the dashboard, in a real browser against
// a real SMTP server (python3-aiosmtpd): Configuración → Impresión y correo sets both, the
// document page shows the e-mail's outcome and resends it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { seriousViolations } from './helpers/axe.ts';
import { DESKTOP, heading, launchBrowser, openPage, signIn, unexpectedProblems, type WatchedPage } from './helpers/browser.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.ts';
import { waitFor } from './helpers/wait.ts';
import { crc32, deflateSync } from 'node:zlib';

/** A 60×30 RGB PNG, black on its left half; `interlace` flags it Adam7 (which the service refuses). */
function pngFile(interlace = 0): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(data.length + 12);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), data.length + 8);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(60, 0);
  ihdr.writeUInt32BE(30, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  ihdr[12] = interlace;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(90, 0), Buffer.alloc(90, 255)]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: 30 }, () => row)))), chunk('IEND', Buffer.alloc(0))]);
}

// Refuses una-vez@ for good the first time only, so a resend can succeed.
const HANDLER = `
from aiosmtpd.handlers import Mailbox
class Handler(Mailbox):
    refused = set()
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith('una-vez@') and address not in Handler.refused:
            Handler.refused.add(address)
            return '550 5.2.1 mailbox disabled'
        envelope.rcpt_tos.append(address)
        return '250 OK'
`;

let t: TestService;
let smtp: TestSmtpServer;
let browser: Browser;
const pages: WatchedPage[] = [];

before(async () => {
  browser = await launchBrowser();
  smtp = await startSmtpServer({ handler: HANDLER });
  t = await startTestService({ env: { ...FAST_PIPELINE, SMTP_URL: smtp.url, MAIL_FROM: 'facturas@servicio.example', MAIL_RETRY_BASE_MS: '20', MAIL_RETRY_MAX_MS: '50' } });
});
after(async () => {
  for (const p of pages) await p.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

describe('correo al comprador', () => {
  test('a refused e-mail shows why, and Reenviar correo sends it; axe finds nothing serious', async () => {
    const a = await newTenantWithCertificate(t.url);
    assert.equal((await call(t.url, 'PUT', '/api/email/settings', { json: { enabled: true }, headers: { authorization: `Bearer ${a.accessToken}` } })).status, 200);
    const body = ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc }, Comprador: { CorreoComprador: 'una-vez@comprador.example' } } });
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers: { 'x-api-key': a.apiKey } });
    assert.equal(res.status, 202, res.text);
    const { internalTrackId: id, encf } = res.body.data as { internalTrackId: string; encf: string };
    await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['aceptado']);
    await waitFor(async () => (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: { 'x-api-key': a.apiKey } })).body.data.correo?.estado === 'error' || undefined, 20_000, 'refused');

    const w = await openPage(browser, DESKTOP);
    pages.push(w);
    const { page } = w;
    await signIn(page, t.url, a.email, a.password);
    await page.getByRole('link', { name: encf }).click();
    await heading(page, `Documento ${encf}`);
    const section = page.locator('[data-section="email"]');
    await section.getByRole('heading', { name: 'Correo al comprador' }).waitFor();
    assert.equal(await section.locator('[data-field="correo"]').textContent(), 'No se pudo enviar');
    assert.match(await section.locator('[data-field="correoDetalle"]').textContent() ?? '', /550 5\.2\.1 mailbox disabled/);
    assert.ok((await section.textContent())?.includes('una-vez@comprador.example'));
    assert.deepEqual(await seriousViolations(page), []);

    await section.getByRole('button', { name: 'Reenviar correo' }).click();
    await page.locator('[data-section="email"] [data-field="correo"]', { hasText: 'Enviado' }).waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('[data-section="email"] [data-field="correoDetalle"]').count(), 0);
    assert.equal(smtp.messages().length, 1, 'the relay took the resent e-mail');
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(unexpectedProblems(w), []);
  });

  test('Impresión y correo uploads and removes the logo, refuses an interlaced PNG, and saves the e-mail settings; axe finds nothing serious', async () => {
    const a = await newTenantWithCertificate(t.url);
    const bearer = { authorization: `Bearer ${a.accessToken}` };
    const w = await openPage(browser, DESKTOP);
    pages.push(w);
    const { page } = w;
    await signIn(page, t.url, a.email, a.password);
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Configuración' }).click();
    await page.getByRole('navigation', { name: 'Configuración' }).getByRole('link', { name: 'Impresión y correo', exact: true }).click();
    await heading(page, 'Impresión y correo');
    await page.getByText('Sin logo').waitFor();
    assert.deepEqual(await seriousViolations(page), []);

    const input = page.getByLabel('Archivo PNG o JPEG');
    await input.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: pngFile(1) });
    await page.getByRole('button', { name: 'Subir logo' }).click();
    await page.getByText(/interlaced \(Adam7\) PNG is not supported/).waitFor();
    assert.equal((await fetch(`${t.url}/api/logo`, { headers: bearer })).status, 404, 'nothing stored');

    await input.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: pngFile() });
    await page.getByRole('button', { name: 'Subir logo' }).click();
    await page.getByText('Logo guardado (60 × 30 píxeles).').waitFor();
    await page.locator('img[data-logo]').waitFor();
    assert.deepEqual(Buffer.from(await (await fetch(`${t.url}/api/logo`, { headers: bearer })).arrayBuffer()), pngFile());

    await page.getByLabel(/Enviar por correo al comprador/).check();
    await page.getByLabel('Responder a').fill('contabilidad@emisor.example');
    await page.getByRole('button', { name: 'Guardar', exact: true }).click();
    await page.getByText('Guardado: los e-CF aceptados se enviarán al comprador.').waitFor();
    const saved = (await call(t.url, 'GET', '/api/email/settings', { headers: bearer })).body.data;
    assert.deepEqual([saved.enabled, saved.replyTo, saved.smtpConfigured], [true, 'contabilidad@emisor.example', true]);
    assert.deepEqual(await seriousViolations(page), []);

    await page.getByRole('button', { name: 'Quitar logo' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Quitar logo' }).click();
    await page.getByText('Logo quitado.').waitFor();
    await page.getByText('Sin logo').waitFor();
    assert.equal((await fetch(`${t.url}/api/logo`, { headers: bearer })).status, 404);
    assert.deepEqual(unexpectedProblems(w, [404, 422]), []);
  });
});
