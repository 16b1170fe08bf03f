// A real SMTP server for tests: Debian's python3-aiosmtpd (`python3 -m aiosmtpd`), started on a
// free loopback port, storing what it accepts in a maildir that Python's own e-mail parser reads
// back (a parser that shares no code with ours). Optional: STARTTLS or implicit TLS with a
// throwaway certificate, a handler of the test's (a Python module written to a temp dir).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.ts';

/** Debian's interpreter, which has python3-aiosmtpd (a pyenv python first in PATH may not). */
export const PYTHON = '/usr/bin/python3';

export interface ReceivedMail {
  /** Every header as Python's email parser reads it: [name, value] in order. */
  headers: [string, string][];
  /** The text/plain body, decoded. */
  text: string;
  attachments: { filename: string | null; contentType: string; sha256: string; size: number }[];
  raw: string;
}

export interface SmtpServerOptions {
  /** 'starttls': --tlscert (STARTTLS required by aiosmtpd); 'smtps': TLS from the first byte. */
  tls?: 'starttls' | 'smtps';
  /** Python source of a module defining `Handler`, given the maildir's path (it may subclass aiosmtpd.handlers.Mailbox). */
  handler?: string;
  /** The address to listen on; 127.0.0.1 by default. */
  host?: string;
}

export interface TestSmtpServer {
  port: number;
  url: string;
  /** PEM of the server's self-signed certificate (for the client's trust), with tls. */
  certificate: string | null;
  messages(): ReceivedMail[];
  close(): Promise<void>;
}

async function freePort(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port }, () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
}

const PARSE = `
import email, email.policy, hashlib, json, os, sys
out = []
box = os.path.join(sys.argv[1], 'new')
for name in sorted(os.listdir(box), key=lambda n: os.stat(os.path.join(box, n)).st_mtime_ns):
    raw = open(os.path.join(box, name), 'rb').read()
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = msg.get_body(preferencelist=('plain',))
    atts = []
    for part in msg.iter_attachments():
        data = part.get_payload(decode=True) or b''
        atts.append({'filename': part.get_filename(), 'contentType': part.get_content_type(), 'sha256': hashlib.sha256(data).hexdigest(), 'size': len(data)})
    out.append({'headers': [[k, str(v)] for k, v in msg.items()], 'text': body.get_content() if body is not None else '', 'attachments': atts, 'raw': raw.decode('latin1')})
print(json.dumps(out))
`;

export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const dir = mkdtempSync(join(tmpdir(), 'smtp-'));
  const host = options.host ?? '127.0.0.1';
  const port = await freePort(host);
  const args = ['-m', 'aiosmtpd', '-n', '-l', `${host}:${port}`];
  let certificate: string | null = null;
  if (options.tls !== undefined) {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
      '-addext', `subjectAltName=DNS:localhost,IP:${host}`], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
    certificate = spawnSync('cat', [cert], { encoding: 'utf8' }).stdout;
    args.push(...(options.tls === 'starttls' ? ['--tlscert', cert, '--tlskey', key] : ['--smtpscert', cert, '--smtpskey', key]));
  }
  const env: Record<string, string> = { ...process.env as Record<string, string> };
  if (options.handler !== undefined) {
    writeFileSync(join(dir, 'test_handler.py'), options.handler);
    env.PYTHONPATH = dir;
    args.push('-c', 'test_handler.Handler', join(dir, 'mail'));
  } else {
    args.push('-c', 'aiosmtpd.handlers.Mailbox', join(dir, 'mail'));
  }
  const child: ChildProcess = spawn(PYTHON, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    await waitFor(async () => child.exitCode === null && await accepts(host, port), 15_000, 'aiosmtpd listening');
  } catch (err) {
    child.kill();
    throw new Error(`aiosmtpd did not start: ${stderr} ${String(err)}`);
  }
  return {
    port,
    url: `${options.tls === 'smtps' ? 'smtps' : 'smtp'}://${host}:${port}`,
    certificate,
    messages() {
      if (!readdirSync(dir).includes('mail')) return [];
      const run = spawnSync(PYTHON, ['-c', PARSE, join(dir, 'mail')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (run.status !== 0) throw new Error(`parsing the maildir: ${run.stderr}`);
      return JSON.parse(run.stdout) as ReceivedMail[];
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
