// The accepted e-CF e-mailed to its buyer, end to end: the service with the DGII simulator, a
// real SMTP server (python3-aiosmtpd) whose maildir Python's parser reads back, and a webhook
// receiver for ecf.email_update.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, type Loose } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.ts';
import { waitFor } from './helpers/wait.ts';

// Accepts every recipient but three: rechazar@ is refused for good (550); ocupado@ is told to come
// back later (451) on its first two tries, then accepted; siempre-ocupado@ always gets 452.
const HANDLER = `
from aiosmtpd.handlers import Mailbox
class Handler(Mailbox):
    tries = {}
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith('rechazar@'):
            return '550 5.1.1 mailbox unavailable'
        if address.startswith('siempre-ocupado@'):
            return '452 4.2.2 mailbox full'
        if address.startswith('ocupado@'):
            Handler.tries[address] = Handler.tries.get(address, 0) + 1
            if Handler.tries[address] <= 2:
                return '451 4.3.0 try again later'
        envelope.rcpt_tos.append(address)
        return '250 OK'
`;

let t: TestService;
let smtp: TestSmtpServer;
let hook: Receiver;

before(async () => {
  smtp = await startSmtpServer({ handler: HANDLER });
  hook = await startReceiver();
  t = await startTestService({
    env: {
      ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'facturas@servicio.example',
      MAIL_RETRY_BASE_MS: '20', MAIL_RETRY_MAX_MS: '50', MAIL_MAX_ATTEMPTS: '4', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000',
    },
  });
});
after(async () => {
  await t?.close();
  await smtp?.close();
  await hook?.close();
});

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

async function tenant(settings: Record<string, unknown> | null): Promise<{ rnc: string; api: Record<string, string>; bearer: Record<string, string> }> {
  const a = await newTenantWithCertificate(t.url);
  const bearer = { authorization: `Bearer ${a.accessToken}` };
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: hook.url }, headers: bearer })).status, 200);
  if (settings !== null) {
    const res = await call(t.url, 'PUT', '/api/email/settings', { json: settings, headers: bearer });
    assert.equal(res.status, 200, res.text);
  }
  return { rnc: a.rnc, api: { 'x-api-key': a.apiKey }, bearer };
}

async function emit(who: { rnc: string; api: Record<string, string> }, correo: string | null, marker?: string): Promise<{ id: string; encf: string }> {
  const body = ecfFor(who.rnc, 31, {
    Encabezado: {
      IdDoc: { eNCF: undefined },
      Emisor: { RNCEmisor: who.rnc, ...(marker === undefined ? {} : { InformacionAdicionalEmisor: marker }) },
      Comprador: correo === null ? { CorreoComprador: undefined } : { CorreoComprador: correo },
    },
  });
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers: who.api });
  assert.equal(res.status, 202, res.text);
  return { id: res.body.data.internalTrackId as string, encf: res.body.data.encf as string };
}

async function correoOf(who: { api: Record<string, string> }, id: string, estados: string[]): Promise<Loose> {
  return waitFor(async () => {
    const doc = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: who.api })).body.data;
    return doc.correo !== null && estados.includes(doc.correo.estado) ? doc : undefined;
  }, 20_000, `correo ${estados.join('|')} of ${id}`);
}

function mailsTo(address: string) {
  return smtp.messages().filter((m) => m.headers.some(([k, v]) => k === 'X-RcptTo' && v === address));
}

function emailEvents(id: string): Loose[] {
  return hook.received.map((r) => r.json as Loose).filter((e) => e.event === 'ecf.email_update' && e.internalTrackId === id);
}

describe('the e-CF e-mailed to its buyer', () => {
  test('an accepted e-CF naming CorreoComprador is e-mailed in Spanish with its PDF and signed XML, and the outcome is on the document and in ecf.email_update', async () => {
    const who = await tenant({ enabled: true, replyTo: 'contabilidad@emisor.example' });
    const settings = (await call(t.url, 'GET', '/api/email/settings', { headers: who.bearer })).body.data;
    assert.deepEqual({ ...settings, updatedAt: typeof settings.updatedAt }, { enabled: true, replyTo: 'contabilidad@emisor.example', smtpConfigured: true, updatedAt: 'string' });

    const { id, encf } = await emit(who, 'compras@comprador.example');
    await waitForEstado(t.url, 'TesteCF', id, who.api, ['aceptado']);
    const doc = await correoOf(who, id, ['enviado']);
    assert.equal(doc.correo.destinatario, 'compras@comprador.example');
    assert.equal(doc.correo.detalle, null);
    assert.ok(Date.parse(doc.correo.enviadoEn) > 0);

    const [mail] = mailsTo('compras@comprador.example');
    assert.ok(mail !== undefined, 'the relay got it');
    const header = (name: string): string[] => mail.headers.filter(([k]) => k === name).map(([, v]) => v);
    assert.deepEqual(header('X-MailFrom'), ['facturas@servicio.example']);
    assert.deepEqual(header('From'), ['Distribuidora Caribe Digital SRL <facturas@servicio.example>']);
    assert.deepEqual(header('To'), ['Ferretería Ochoa & Asociados SRL <compras@comprador.example>']);
    assert.deepEqual(header('Reply-To'), ['contabilidad@emisor.example']);
    assert.deepEqual(header('Subject'), [`Factura de Crédito Fiscal Electrónica ${encf} de Distribuidora Caribe Digital SRL`]);
    for (const needle of ['Estimado(a) Ferretería Ochoa & Asociados SRL', encf, 'RD$ 112,467.00', 'aceptada por la Dirección General de Impuestos Internos', `Código de seguridad: ${doc.securityCode}`, doc.timbreUrl]) {
      assert.ok(mail.text.includes(needle), `"${needle}" in ${mail.text}`);
    }
    const pdf = Buffer.from(await (await fetch(`${t.url}/TesteCF/documentos-ecf/${id}/pdf`, { headers: who.api })).arrayBuffer());
    const xml = Buffer.from(await (await fetch(`${t.url}/TesteCF/documentos-ecf/${id}/xml`, { headers: who.api })).arrayBuffer());
    assert.deepEqual(mail.attachments, [
      { filename: `${who.rnc}${encf}.pdf`, contentType: 'application/pdf', sha256: sha(pdf), size: pdf.length },
      { filename: `${who.rnc}${encf}.xml`, contentType: 'application/xml', sha256: sha(xml), size: xml.length },
    ]);

    const events = await waitFor(() => (emailEvents(id).length >= 2 ? emailEvents(id) : undefined), 10_000, 'two ecf.email_update');
    assert.deepEqual(events.map((e) => e.correo.estado).sort(), ['enviado', 'pendiente']);
    const statusSeqs = hook.received.map((r) => r.json as Loose).filter((e) => e.event === 'ecf.status_update' && e.internalTrackId === id).map((e) => e.sequence as number);
    const all = [...statusSeqs, ...events.map((e) => e.sequence as number)];
    assert.equal(new Set(all).size, all.length, 'one numbering for the document\'s events');
    const sent = events.find((e) => e.correo.estado === 'enviado');
    assert.ok(sent.sequence > Math.max(...statusSeqs));
    assert.deepEqual(Object.keys(sent).sort(), ['correo', 'encf', 'environment', 'event', 'internalTrackId', 'sequence', 'timestamp']);
  });

  test('nothing is sent for a tenant that did not turn e-mail on, a document without CorreoComprador, or one DGII rejected', async () => {
    const off = await tenant(null);
    const a = await emit(off, 'silencio@comprador.example');
    const on = await tenant({ enabled: true });
    const b = await emit(on, null);
    const c = await emit(on, 'rechazado@comprador.example', '[simulador:rechazar]');
    const d = await emit(on, 'control@comprador.example');
    await waitForEstado(t.url, 'TesteCF', a.id, off.api, ['aceptado']);
    await waitForEstado(t.url, 'TesteCF', b.id, on.api, ['aceptado']);
    await waitForEstado(t.url, 'TesteCF', c.id, on.api, ['rechazado']);
    await correoOf(on, d.id, ['enviado']); // the control: a later document of the same tenant was sent
    for (const [who, doc] of [[off, a], [on, b], [on, c]] as const) {
      assert.equal((await call(t.url, 'GET', `/TesteCF/documentos-ecf/${doc.id}`, { headers: who.api })).body.data.correo, null);
      assert.deepEqual(emailEvents(doc.id), []);
    }
    assert.deepEqual(mailsTo('silencio@comprador.example'), []);
    assert.deepEqual(mailsTo('rechazado@comprador.example'), []);
  });

  test('a 5xx refusal ends in error at once, 4xx answers are retried with backoff until the relay takes it or the attempts are spent; resend sends it again', async () => {
    const who = await tenant({ enabled: true });
    const refused = await emit(who, 'rechazar@comprador.example');
    const busy = await emit(who, 'ocupado@comprador.example');
    const r = await correoOf(who, refused.id, ['error']);
    assert.match(r.correo.detalle, /refused it: .*550 5\.1\.1 mailbox unavailable/);
    assert.equal(r.correo.enviadoEn, null);
    await correoOf(who, busy.id, ['enviado']);
    assert.equal(mailsTo('ocupado@comprador.example').length, 1, 'taken on the third try');

    // Resend: back to pendiente, then enviado again; a second request while pending is 409.
    const again = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${busy.id}/correo/reenviar`, { headers: who.api });
    assert.equal(again.status, 202, again.text);
    assert.equal(again.body.data.estado, 'pendiente');
    await waitFor(() => mailsTo('ocupado@comprador.example').length === 2 || undefined, 20_000, 'the resent e-mail');
    await correoOf(who, busy.id, ['enviado']);

    const full = await emit(who, 'siempre-ocupado@comprador.example');
    const f = await correoOf(who, full.id, ['error']);
    assert.match(f.correo.detalle, /Could not be sent after 4 attempts: .*452 4\.2\.2 mailbox full/, 'MAIL_MAX_ATTEMPTS spent');

    const retry = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${refused.id}/correo/reenviar`, { headers: who.api });
    assert.equal(retry.status, 202);
    await waitFor(async () => emailEvents(refused.id).filter((e) => e.correo.estado === 'error').length === 2 || undefined, 20_000, 'refused again');
  });

  test('a CorreoComprador DGII\'s pattern allows but SMTP cannot carry without SMTPUTF8 (peña@…) ends in error, nothing sent', async () => {
    const who = await tenant({ enabled: true });
    const { id } = await emit(who, 'peña@comprador.example');
    const doc = await correoOf(who, id, ['error']);
    assert.match(doc.correo.detalle, /is not an address this service sends to/);
    assert.deepEqual(smtp.messages().filter((m) => m.headers.some(([k, v]) => k === 'X-RcptTo' && v.includes('comprador.example') && v.startsWith('pe'))), []);
  });

  test('resend answers 409 for a rejected document or one without CorreoComprador, 404 for another tenant\'s, 401 without credentials', async () => {
    const who = await tenant({ enabled: true });
    const rejected = await emit(who, 'x@comprador.example', '[simulador:rechazar]');
    const without = await emit(who, null);
    await waitForEstado(t.url, 'TesteCF', rejected.id, who.api, ['rechazado']);
    await waitForEstado(t.url, 'TesteCF', without.id, who.api, ['aceptado']);
    const r1 = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${rejected.id}/correo/reenviar`, { headers: who.api });
    assert.equal(r1.status, 409);
    assert.match(r1.body.error.message, /accepted/);
    const r2 = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${without.id}/correo/reenviar`, { headers: who.api });
    assert.equal(r2.status, 409);
    assert.match(r2.body.error.message, /CorreoComprador/);
    const stranger = await tenant(null);
    assert.equal((await call(t.url, 'POST', `/TesteCF/documentos-ecf/${without.id}/correo/reenviar`, { headers: stranger.api })).status, 404);
    assert.equal((await call(t.url, 'POST', `/TesteCF/documentos-ecf/${without.id}/correo/reenviar`)).status, 401);
  });

  test('settings refuse a reply-to that is not a plain address (no header injection), and unknown fields', async () => {
    const who = await tenant(null);
    for (const replyTo of ['a@b.example\r\nBcc: victim@evil.example', 'Nombre <a@b.example>', 'a@b.example, c@d.example', 'no-es-correo', 7]) {
      const res = await call(t.url, 'PUT', '/api/email/settings', { json: { replyTo }, headers: who.bearer });
      assert.equal(res.status, 422, String(replyTo));
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
    assert.equal((await call(t.url, 'PUT', '/api/email/settings', { json: { enabled: 'yes' }, headers: who.bearer })).status, 422);
    assert.equal((await call(t.url, 'PUT', '/api/email/settings', { json: { bcc: 'x@y.example' }, headers: who.bearer })).status, 422);
    const saved = await call(t.url, 'PUT', '/api/email/settings', { json: { replyTo: 'ventas@emisor.example' }, headers: who.bearer });
    assert.deepEqual([saved.body.data.enabled, saved.body.data.replyTo], [false, 'ventas@emisor.example']);
    const cleared = await call(t.url, 'PUT', '/api/email/settings', { json: { enabled: true, replyTo: null }, headers: who.bearer });
    assert.deepEqual([cleared.body.data.enabled, cleared.body.data.replyTo], [true, null]);
  });
});

describe('mail configuration', () => {
  test('SMTP_URL needs MAIL_FROM, both must be well formed; unset, nothing is configured', () => {
    const base = { NODE_ENV: 'test' };
    assert.equal(loadConfig(base).mail.smtp, null);
    assert.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://relay.example' }), /MAIL_FROM is required/);
    assert.throws(() => loadConfig({ ...base, SMTP_URL: 'http://relay.example', MAIL_FROM: 'a@b.example' }), /SMTP_URL must start with smtp/);
    assert.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://relay.example', MAIL_FROM: 'Facturas <a@b.example>' }), /MAIL_FROM must be a plain mail address/);
    const c = loadConfig({ ...base, SMTP_URL: 'smtps://u:p@relay.example', MAIL_FROM: 'a@b.example', SMTP_REQUIRE_TLS: 'false' });
    assert.deepEqual(c.mail.smtp, { secure: true, host: 'relay.example', port: 465, user: 'u', password: 'p', requireTls: false });
  });
});
