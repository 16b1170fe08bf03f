// Our SMTP client and MIME writer against a real SMTP server (python3-aiosmtpd), whose maildir
// Python's e-mail parser reads back.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { buildMessage, dotStuff, isMailAddress, MailAddressError, parseSmtpUrl, sendMail, SmtpError, SmtpUrlError, type MailMessage } from '../src/lib/smtp/index.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON, startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.ts';

// aiosmtpd with an authenticator (its command line has none): started from a script, on loopback,
// where AUTH may be used without TLS. It answers 250 to DATA only for an authenticated session.
const AUTH_SERVER = `
import sys
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
class Handler:
    async def handle_DATA(self, server, session, envelope):
        return '250 OK' if session.authenticated else '530 5.7.0 authentication required'
def auth(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and data.login == 'us@er'.encode() and data.password == 'p:ss wörd'.encode()
    return AuthResult(success=ok, handled=False)
c = Controller(Handler(), hostname='127.0.0.1', port=int(sys.argv[1]), authenticator=auth, auth_require_tls=False, auth_exclude_mechanism=sys.argv[2:])
c.start()
print('READY', flush=True)
sys.stdin.read()
c.stop()
`;

async function startAuthServer(exclude: string[]): Promise<{ port: number; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'smtp-auth-'));
  writeFileSync(join(dir, 'server.py'), AUTH_SERVER);
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const child = spawn(PYTHON, [join(dir, 'server.py'), String(port), ...exclude], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('READY')) resolve(); });
    child.once('exit', (code) => reject(new Error(`the AUTH server exited (${code})`)));
  });
  return { port, close: () => { child.stdin.end(); child.kill(); rmSync(dir, { recursive: true, force: true }); } };
}

const servers: TestSmtpServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function server(options: Parameters<typeof startSmtpServer>[0] = {}): Promise<TestSmtpServer> {
  const s = await startSmtpServer(options);
  servers.push(s);
  return s;
}

const PDF = Buffer.from('%PDF-1.4\n%fake\n'.repeat(500));
const XML = Buffer.from('<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado>Peña</Encabezado></ECF>\n.\n..\n', 'utf8');
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

function message(overrides: Partial<MailMessage> = {}): MailMessage {
  return {
    from: { address: 'facturas@emisor.example', name: 'Distribuidora Caribe Digital SRL' },
    to: { address: 'compras@comprador.example', name: 'Ferretería Ochoa & Asociados' },
    replyTo: { address: 'contabilidad@emisor.example' },
    subject: 'Factura de Crédito Fiscal Electrónica E310000000001 — Caribe Digital',
    text: 'Estimado cliente:\n\nAdjuntamos su comprobante.\n.\nUna línea que empieza con punto:\n.punto\n',
    attachments: [
      { filename: '131880681E310000000001.pdf', contentType: 'application/pdf', data: PDF },
      { filename: '131880681E310000000001.xml', contentType: 'application/xml', data: XML },
    ],
    ...overrides,
  };
}

function header(mail: { headers: [string, string][] }, name: string): string[] {
  return mail.headers.filter(([k]) => k.toLowerCase() === name.toLowerCase()).map(([, v]) => v);
}

describe('SMTP client', () => {
  test('a message with accents and two attachments reaches a plain loopback relay intact', async () => {
    const s = await server();
    await sendMail(parseSmtpUrl(s.url, true), { from: 'facturas@emisor.example', to: 'compras@comprador.example', message: buildMessage(message()), timeoutMs: 10_000 });
    const [mail] = s.messages();
    assert.ok(mail !== undefined);
    assert.deepEqual(header(mail, 'Subject'), ['Factura de Crédito Fiscal Electrónica E310000000001 — Caribe Digital']);
    assert.deepEqual(header(mail, 'From'), ['Distribuidora Caribe Digital SRL <facturas@emisor.example>']);
    assert.deepEqual(header(mail, 'To'), ['Ferretería Ochoa & Asociados <compras@comprador.example>']);
    assert.deepEqual(header(mail, 'Reply-To'), ['contabilidad@emisor.example']);
    assert.deepEqual(header(mail, 'X-MailFrom'), ['facturas@emisor.example']);
    assert.deepEqual(header(mail, 'X-RcptTo'), ['compras@comprador.example']);
    assert.match(header(mail, 'Message-ID')[0] ?? '', /^<[0-9a-f]{32}@emisor\.example>$/);
    assert.equal(mail.text.replace(/\r\n/g, '\n'), 'Estimado cliente:\n\nAdjuntamos su comprobante.\n.\nUna línea que empieza con punto:\n.punto\n');
    assert.deepEqual(mail.attachments, [
      { filename: '131880681E310000000001.pdf', contentType: 'application/pdf', sha256: sha(PDF), size: PDF.length },
      { filename: '131880681E310000000001.xml', contentType: 'application/xml', sha256: sha(XML), size: XML.length },
    ]);
  });

  test('CR, LF and header text in names and subjects stay inside their header; a bad address is refused before any connection', async () => {
    const s = await server();
    const evil = 'Evil\r\nBcc: victim@evil.example\r\nX-Injected: yes\n\r\n--boundary';
    const m = message({ from: { address: 'facturas@emisor.example', name: evil }, to: { address: 'compras@comprador.example', name: `${evil}\u0000` }, subject: `Hola\r\nBcc: victim@evil.example\r\n\r\nbody`, attachments: [{ filename: 'a"\r\nX-Injected: yes.pdf', contentType: 'application/pdf', data: PDF }] });
    await sendMail(parseSmtpUrl(s.url, true), { from: 'facturas@emisor.example', to: 'compras@comprador.example', message: buildMessage(m), timeoutMs: 10_000 });
    const [mail] = s.messages();
    assert.ok(mail !== undefined);
    assert.deepEqual(header(mail, 'Bcc'), []);
    assert.deepEqual(header(mail, 'X-Injected'), []);
    assert.deepEqual(header(mail, 'X-RcptTo'), ['compras@comprador.example'], 'one recipient only');
    assert.equal(header(mail, 'Subject').length, 1);
    assert.deepEqual(header(mail, 'Subject'), ['Hola  Bcc: victim@evil.example    body'], 'the subject is one line of text');
    const from = header(mail, 'From');
    assert.equal(from.length, 1);
    assert.match(from[0] ?? '', /^"Evil +Bcc: victim@evil\.example +X-Injected: y ?es +--boundary" <facturas@emisor\.example>$/, 'the name is text of the one From header');
    const names = new Set(mail.headers.map(([k]) => k.toLowerCase()));
    assert.deepEqual([...names].filter((n) => !['from', 'to', 'reply-to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'x-peer', 'x-mailfrom', 'x-rcptto'].includes(n)), []);
    assert.equal(mail.attachments[0]?.filename, 'a___X-Injected__yes.pdf');

    for (const address of ['a@b.example\r\nRCPT TO:<x@evil.example>', 'a@b.example>', '<a@b.example>', 'a b@c.example', 'a@b.example,c@d.example', 'nobody', `${'a'.repeat(65)}@b.example`, 'ñ@b.example']) {
      assert.equal(isMailAddress(address), false, address);
      assert.throws(() => buildMessage(message({ to: { address } })), MailAddressError, address);
      assert.throws(() => buildMessage(message({ replyTo: { address } })), MailAddressError, address);
      await assert.rejects(sendMail(parseSmtpUrl(s.url, true), { from: 'facturas@emisor.example', to: address, message: Buffer.from('x'), timeoutMs: 5000 }), (e: unknown) => e instanceof SmtpError && e.permanent, address);
    }
    assert.equal(s.messages().length, 1);
  });

  test('a line of one dot is doubled, never ending DATA early', () => {
    assert.equal(dotStuff(Buffer.from('a\n.\n..b\nc')).toString(), 'a\r\n..\r\n...b\r\nc\r\n.\r\n');
  });

  test('STARTTLS is used when offered, and the relay\'s certificate is verified', async () => {
    const s = await server({ tls: 'starttls' });
    const target = parseSmtpUrl(s.url, true);
    await assert.rejects(sendMail(target, { from: 'a@emisor.example', to: 'b@comprador.example', message: buildMessage(message()), timeoutMs: 10_000 }), (e: unknown) => e instanceof SmtpError && /STARTTLS failed/.test(e.message));
    await sendMail(target, { from: 'a@emisor.example', to: 'b@comprador.example', message: buildMessage(message()), timeoutMs: 10_000, tls: { ca: s.certificate ?? '' } });
    // aiosmtpd refuses MAIL before STARTTLS with --tlscert: the message arrived over TLS.
    assert.equal(s.messages().length, 1);
  });

  test('smtps:// speaks TLS from the first byte', async () => {
    const s = await server({ tls: 'smtps' });
    await sendMail(parseSmtpUrl(s.url, true), { from: 'a@emisor.example', to: 'b@comprador.example', message: buildMessage(message()), timeoutMs: 10_000, tls: { ca: s.certificate ?? '' } });
    assert.equal(s.messages().length, 1);
  });

  test('a relay off the loopback interface without STARTTLS is refused unless SMTP_REQUIRE_TLS is off, and never gets a password in clear', async () => {
    const address = Object.values(networkInterfaces()).flat().find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;
    assert.ok(address !== undefined, 'this machine has a non-loopback IPv4 address');
    const s = await server({ host: address });
    const send = (url: string, requireTls: boolean) => sendMail(parseSmtpUrl(url, requireTls), { from: 'a@emisor.example', to: 'b@comprador.example', message: buildMessage(message()), timeoutMs: 10_000 });
    await assert.rejects(send(s.url, true), (e: unknown) => e instanceof SmtpError && /does not offer STARTTLS/.test(e.message) && !e.permanent);
    assert.equal(s.messages().length, 0);
    await assert.rejects(send(s.url.replace('smtp://', 'smtp://user:secret@'), false), (e: unknown) => e instanceof SmtpError && /password in clear/.test(e.message));
    assert.equal(s.messages().length, 0);
    await send(s.url, false);
    assert.equal(s.messages().length, 1);
  });

  test('AUTH PLAIN, or LOGIN when only that is offered, sends the percent-decoded credentials; a wrong password is a permanent refusal', async () => {
    for (const exclude of [['LOGIN'], ['PLAIN']]) {
      const s = await startAuthServer(exclude);
      try {
        const url = (password: string) => `smtp://us%40er:${encodeURIComponent(password)}@127.0.0.1:${s.port}`;
        const send = (password: string) => sendMail(parseSmtpUrl(url(password), true), { from: 'a@emisor.example', to: 'b@comprador.example', message: buildMessage(message()), timeoutMs: 10_000 });
        await send('p:ss wörd');
        await assert.rejects(send('wrong'), (e: unknown) => e instanceof SmtpError && e.permanent && e.code === 535, `${exclude.join()} excluded`);
        // Without credentials the session is not authenticated and DATA is refused.
        await assert.rejects(sendMail(parseSmtpUrl(`smtp://127.0.0.1:${s.port}`, true), { from: 'a@emisor.example', to: 'b@comprador.example', message: buildMessage(message()), timeoutMs: 10_000 }), (e: unknown) => e instanceof SmtpError && e.code === 530);
      } finally {
        s.close();
      }
    }
  });

  test('a 5xx refusal is permanent, a 4xx one is not', async () => {
    const s = await server({ handler: `
class Handler:
    @classmethod
    def from_cli(cls, parser, *args):
        return cls()
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith('busy'):
            return '451 4.3.0 try later'
        return '550 5.1.1 no such user'
` });
    const send = (to: string) => sendMail(parseSmtpUrl(s.url, true), { from: 'a@emisor.example', to, message: buildMessage(message()), timeoutMs: 10_000 });
    await assert.rejects(send('nobody@comprador.example'), (e: unknown) => e instanceof SmtpError && e.permanent && e.code === 550 && /no such user/.test(e.message));
    await assert.rejects(send('busy@comprador.example'), (e: unknown) => e instanceof SmtpError && !e.permanent && e.code === 451);
  });

  test('a relay that never answers ends the attempt at the deadline; nothing listening fails at once', async () => {
    const { createServer } = await import('node:net');
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    await assert.rejects(sendMail(parseSmtpUrl(`smtp://127.0.0.1:${port}`, true), { from: 'a@emisor.example', to: 'b@comprador.example', message: Buffer.from('x'), timeoutMs: 300 }), /did not finish within 300 ms/);
    silent.close();
    await assert.rejects(sendMail(parseSmtpUrl(`smtp://127.0.0.1:${port}`, true), { from: 'a@emisor.example', to: 'b@comprador.example', message: Buffer.from('x'), timeoutMs: 5000 }), /could not connect/);
  });

  test('SMTP_URL is smtp:// or smtps:// with a host; credentials are percent-decoded', () => {
    assert.deepEqual(parseSmtpUrl('smtps://us%40er:p%3Ass@mail.example', true), { secure: true, host: 'mail.example', port: 465, user: 'us@er', password: 'p:ss', requireTls: true });
    assert.deepEqual(parseSmtpUrl('smtp://mail.example', false), { secure: false, host: 'mail.example', port: 587, user: null, password: null, requireTls: false });
    for (const bad of ['http://mail.example', 'smtp://', 'smtp://mail.example/x', 'smtp://mail.example?x=1', 'mail.example']) {
      assert.throws(() => parseSmtpUrl(bad, true), SmtpUrlError, bad);
    }
  });
});
