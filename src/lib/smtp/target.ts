// The relay the service sends mail through, from SMTP_URL: smtps://user:pass@host:465 (TLS from
// the first byte) or smtp://host:587 (STARTTLS). Credentials in the URL are percent-decoded.

export interface SmtpTarget {
  readonly secure: boolean;
  readonly host: string;
  readonly port: number;
  readonly user: string | null;
  readonly password: string | null;
  /**
   * On smtp://, a relay that is not on the loopback interface must offer STARTTLS (the message
   * and any password would otherwise cross the network in clear); false lets the operator
   * allow a plain relay on purpose.
   */
  readonly requireTls: boolean;
}

export class SmtpUrlError extends Error {}

/** Loopback addresses, where a plain connection never leaves the host. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function parseSmtpUrl(value: string, requireTls: boolean): SmtpTarget {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new SmtpUrlError('SMTP_URL must be an absolute smtp:// or smtps:// URL');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new SmtpUrlError('SMTP_URL must start with smtp:// (STARTTLS) or smtps:// (TLS)');
  if (u.hostname === '') throw new SmtpUrlError('SMTP_URL names no host');
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.hash !== '') throw new SmtpUrlError('SMTP_URL takes no path, query or fragment');
  const secure = u.protocol === 'smtps:';
  let user: string | null = null;
  let password: string | null = null;
  try {
    user = u.username === '' ? null : decodeURIComponent(u.username);
    password = u.password === '' ? null : decodeURIComponent(u.password);
  } catch {
    throw new SmtpUrlError('SMTP_URL has badly percent-encoded credentials');
  }
  if ((user ?? '').includes('\0') || (password ?? '').includes('\0')) throw new SmtpUrlError('SMTP_URL credentials cannot contain NUL');
  return {
    secure,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port === '' ? (secure ? 465 : 587) : Number(u.port),
    user,
    password,
    requireTls,
  };
}

/** SMTP_URL with the password hidden, for logs and messages. */
export function describeTarget(t: SmtpTarget): string {
  return `${t.secure ? 'smtps' : 'smtp'}://${t.user === null ? '' : `${t.user}@`}${t.host}:${t.port}`;
}
