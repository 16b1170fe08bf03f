// A small SMTP client (RFC 5321) on node:net and node:tls: one message per connection, EHLO,
// STARTTLS on smtp:// (required for a relay off the loopback interface unless the operator
// turned that off), AUTH PLAIN or LOGIN only over TLS or loopback, MAIL FROM, RCPT TO, DATA
// with dot-stuffing, QUIT. Every reply line and the whole exchange are bounded, so a hostile or
// stuck relay ends the attempt instead of the process.
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { isMailAddress } from './address.ts';
import { isLoopbackHost, type SmtpTarget } from './target.ts';

export interface SendOptions {
  readonly from: string;
  readonly to: string;
  /** The message as buildMessage gives it. */
  readonly message: Buffer;
  /** The name given in EHLO. */
  readonly clientName?: string;
  /** Deadline of the whole exchange. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Extra TLS options (a test's CA). */
  readonly tls?: Pick<ConnectionOptions, 'ca'>;
}

/**
 * A failed send. `permanent`: the relay refused it for good (a 5xx reply: an unknown
 * recipient, a refused sender, bad credentials), so trying again would not help.
 */
export class SmtpError extends Error {
  readonly permanent: boolean;
  readonly code: number | null;

  constructor(message: string, permanent: boolean, code: number | null = null) {
    super(message);
    this.name = 'SmtpError';
    this.permanent = permanent;
    this.code = code;
  }
}

const MAX_LINE = 2048;
const MAX_LINES = 200;

interface Reply {
  code: number;
  lines: string[];
}

/** Reads CRLF-terminated reply lines from a socket, one reply (possibly multi-line) at a time. */
class ReplyReader {
  private buffer = '';
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;
  private socket: Socket | TLSSocket;
  private readonly onData = (chunk: Buffer): void => {
    this.buffer += chunk.toString('latin1');
    if (this.buffer.length > MAX_LINE * MAX_LINES) this.fail(new SmtpError('the relay sent an oversized reply', false));
    this.pump();
  };
  private readonly onError = (err: Error): void => this.fail(new SmtpError(`connection failed: ${err.message}`, false));
  private readonly onClose = (): void => this.fail(new SmtpError('the relay closed the connection', false));

  constructor(socket: Socket | TLSSocket) {
    this.socket = socket;
    this.attach();
  }

  private attach(): void {
    this.socket.on('data', this.onData);
    this.socket.on('error', this.onError);
    this.socket.on('close', this.onClose);
  }

  /** Moves to the TLS socket that wraps the plain one after STARTTLS. */
  switchTo(socket: TLSSocket): void {
    this.socket.off('data', this.onData);
    this.socket.off('error', this.onError);
    this.socket.off('close', this.onClose);
    this.socket = socket;
    this.buffer = '';
    this.attach();
  }

  fail(err: Error): void {
    if (this.failure !== null) return;
    this.failure = err;
    const w = this.waiting;
    this.waiting = null;
    w?.reject(err);
  }

  next(): Promise<Reply> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.pump();
    });
  }

  private pump(): void {
    if (this.waiting === null) return;
    const lines: string[] = [];
    let at = 0;
    for (;;) {
      const end = this.buffer.indexOf('\r\n', at);
      if (end < 0) {
        if (this.buffer.length - at > MAX_LINE) this.fail(new SmtpError('the relay sent an overlong reply line', false));
        return;
      }
      const line = this.buffer.slice(at, end);
      at = end + 2;
      const m = /^(\d{3})([ -])(.*)$/.exec(line) ?? /^(\d{3})()$/.exec(line);
      if (m === null) return this.fail(new SmtpError(`the relay sent a malformed reply: ${JSON.stringify(line.slice(0, 100))}`, false));
      lines.push(m[3] ?? '');
      if (lines.length > MAX_LINES) return this.fail(new SmtpError('the relay sent too many reply lines', false));
      if (m[2] !== '-') {
        this.buffer = this.buffer.slice(at);
        const w = this.waiting;
        this.waiting = null;
        w.resolve({ code: Number(m[1]), lines });
        return;
      }
    }
  }
}

/** DATA's body: CRLF line endings, a leading dot doubled, ended by CRLF . CRLF. */
export function dotStuff(message: Buffer): Buffer {
  const text = message.toString('latin1').replace(/\r?\n/g, '\r\n');
  const stuffed = text.replace(/^\./gm, '..');
  return Buffer.from(`${stuffed}${stuffed.endsWith('\r\n') ? '' : '\r\n'}.\r\n`, 'latin1');
}

function expect(reply: Reply, ok: (code: number) => boolean, what: string): void {
  if (ok(reply.code)) return;
  const text = reply.lines.join(' ').slice(0, 300);
  throw new SmtpError(`${what}: the relay answered ${reply.code} ${text}`, reply.code >= 500 && reply.code < 600, reply.code);
}

function openSocket(target: SmtpTarget, tls: SendOptions['tls']): Promise<Socket | TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = target.secure
      ? tlsConnect({ host: target.host, port: target.port, servername: isIp(target.host) ? undefined : target.host, ...tls }, () => resolve(socket))
      : netConnect({ host: target.host, port: target.port }, () => resolve(socket));
    socket.once('error', (err) => reject(new SmtpError(`could not connect to ${target.host}:${target.port}: ${err.message}`, false)));
  });
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

function upgrade(socket: Socket, target: SmtpTarget, tls: SendOptions['tls']): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const secured = tlsConnect({ socket, servername: isIp(target.host) ? undefined : target.host, ...tls }, () => resolve(secured));
    secured.once('error', (err) => reject(new SmtpError(`STARTTLS failed: ${err.message}`, false)));
  });
}

/** Sends one message through the relay; throws SmtpError (permanent or not) when it was not accepted. */
export async function sendMail(target: SmtpTarget, options: SendOptions): Promise<void> {
  if (!isMailAddress(options.from)) throw new SmtpError('the sender is not a valid mail address', true);
  if (!isMailAddress(options.to)) throw new SmtpError('the recipient is not a valid mail address', true);
  const clientName = options.clientName ?? 'localhost';
  if (!/^[A-Za-z0-9.-]{1,253}$/.test(clientName)) throw new SmtpError('the EHLO name is not a host name', true);

  let socket: Socket | TLSSocket = await openSocket(target, options.tls);
  const reader = new ReplyReader(socket);
  const timer = setTimeout(() => {
    reader.fail(new SmtpError(`the relay did not finish within ${options.timeoutMs} ms`, false));
    socket.destroy();
  }, options.timeoutMs);
  const abort = (): void => {
    reader.fail(new SmtpError('the send was cancelled', false));
    socket.destroy();
  };
  options.signal?.addEventListener('abort', abort, { once: true });
  const command = async (line: string): Promise<Reply> => {
    socket.write(`${line}\r\n`, 'latin1');
    return reader.next();
  };
  try {
    expect(await reader.next(), (c) => c === 220, 'greeting');
    let ehlo = await command(`EHLO ${clientName}`);
    expect(ehlo, (c) => c === 250, 'EHLO');
    let secured = target.secure;
    const offers = (ext: string): boolean => ehlo.lines.slice(1).some((l) => l.toUpperCase().split(' ')[0] === ext);
    if (!secured && offers('STARTTLS')) {
      expect(await command('STARTTLS'), (c) => c === 220, 'STARTTLS');
      const tlsSocket = await upgrade(socket as Socket, target, options.tls);
      reader.switchTo(tlsSocket);
      socket = tlsSocket;
      secured = true;
      ehlo = await command(`EHLO ${clientName}`);
      expect(ehlo, (c) => c === 250, 'EHLO after STARTTLS');
    }
    const loopback = isLoopbackHost(target.host);
    if (!secured && !loopback && target.requireTls) {
      throw new SmtpError(`the relay ${target.host} does not offer STARTTLS, and SMTP_REQUIRE_TLS forbids sending in clear`, false);
    }
    if (target.user !== null) {
      // A password never crosses a network in clear, whatever SMTP_REQUIRE_TLS says.
      if (!secured && !loopback) throw new SmtpError('the relay would take the password in clear: refused', false);
      const auth = ehlo.lines.slice(1).find((l) => l.toUpperCase().startsWith('AUTH'))?.toUpperCase().split(/[ =]/) ?? [];
      if (auth.includes('PLAIN')) {
        const token = Buffer.from(`\0${target.user}\0${target.password ?? ''}`, 'utf8').toString('base64');
        expect(await command(`AUTH PLAIN ${token}`), (c) => c === 235, 'AUTH PLAIN');
      } else if (auth.includes('LOGIN')) {
        expect(await command('AUTH LOGIN'), (c) => c === 334, 'AUTH LOGIN');
        expect(await command(Buffer.from(target.user, 'utf8').toString('base64')), (c) => c === 334, 'AUTH LOGIN user');
        expect(await command(Buffer.from(target.password ?? '', 'utf8').toString('base64')), (c) => c === 235, 'AUTH LOGIN password');
      } else {
        throw new SmtpError('the relay offers neither AUTH PLAIN nor AUTH LOGIN', true);
      }
    }
    expect(await command(`MAIL FROM:<${options.from}>`), (c) => c === 250, 'MAIL FROM');
    expect(await command(`RCPT TO:<${options.to}>`), (c) => c === 250 || c === 251, 'RCPT TO');
    expect(await command('DATA'), (c) => c === 354, 'DATA');
    socket.write(dotStuff(options.message));
    expect(await reader.next(), (c) => c === 250, 'end of DATA');
    // The relay took the message: a failed QUIT changes nothing.
    await command('QUIT').catch(() => undefined);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
    socket.destroy();
  }
}
