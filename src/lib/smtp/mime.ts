// One e-mail message as bytes (RFC 5322 + MIME): a text part and attachments in
// multipart/mixed, every body part base64 in 76-character lines.
//
// No header is ever built from raw text. Addresses must pass isMailAddress; display names,
// the subject and file names are written as RFC 2047 encoded words (base64 of UTF-8), folded by
// this module, so CR, LF or anything else in them cannot start a header of its own.
import { randomBytes } from 'node:crypto';
import { domainOf, isMailAddress } from './address.ts';

export interface Mailbox {
  readonly address: string;
  /** Shown by mail readers; any text (encoded). */
  readonly name?: string;
}

export interface Attachment {
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
}

export interface MailMessage {
  readonly from: Mailbox;
  readonly to: Mailbox;
  readonly replyTo?: Mailbox | null;
  readonly subject: string;
  readonly text: string;
  readonly attachments?: readonly Attachment[];
  /** The Date header; now by default. */
  readonly date?: Date;
}

export class MailAddressError extends Error {
  constructor(what: string) {
    super(`${what} is not a valid mail address`);
    this.name = 'MailAddressError';
  }
}

/**
 * A header value of encoded words, each at most 75 characters, folded onto further lines.
 * Control characters and Unicode line separators become spaces first: even decoded, a name or
 * subject is one line of text.
 */
export function encodedWords(text: string): string {
  const words: string[] = [];
  let chunk = '';
  text = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
  // 45 bytes of UTF-8 give 60 base64 characters: "=?UTF-8?B?" + 60 + "?=" is 72.
  for (const char of text) {
    if (Buffer.byteLength(chunk + char, 'utf8') > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk !== '' || words.length === 0) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join('\r\n ');
}

function mailbox(m: Mailbox, what: string): string {
  if (!isMailAddress(m.address)) throw new MailAddressError(what);
  return m.name === undefined || m.name === '' ? `<${m.address}>` : `${encodedWords(m.name)} <${m.address}>`;
}

function base64Lines(data: Buffer): string {
  return (data.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
}

/** A file name as ASCII letters, digits, dots, dashes and underscores only. */
function safeFilename(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return clean === '' ? 'adjunto' : clean;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 5322 date-time in UTC. */
export function mailDate(d: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]}, ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

/** The message, CRLF line endings, ready for DATA (dot-stuffing is the client's). */
export function buildMessage(m: MailMessage): Buffer {
  const boundary = `=_ecf_${randomBytes(12).toString('hex')}`;
  const headers = [
    `From: ${mailbox(m.from, 'From')}`,
    `To: ${mailbox(m.to, 'To')}`,
    ...(m.replyTo === undefined || m.replyTo === null ? [] : [`Reply-To: ${mailbox(m.replyTo, 'Reply-To')}`]),
    `Subject: ${encodedWords(m.subject)}`,
    `Date: ${mailDate(m.date ?? new Date())}`,
    `Message-ID: <${randomBytes(16).toString('hex')}@${domainOf(m.from.address)}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
  ];
  const parts = [
    [
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      base64Lines(Buffer.from(m.text.replace(/\r?\n/g, '\r\n'), 'utf8')),
    ].join('\r\n'),
    ...(m.attachments ?? []).map((a) => {
      if (!/^[a-z]+\/[a-z0-9.+-]+$/.test(a.contentType)) throw new RangeError(`not a MIME type: ${a.contentType}`);
      const name = safeFilename(a.filename);
      return [
        `Content-Type: ${a.contentType}; name="${name}"`,
        'Content-Transfer-Encoding: base64',
        `Content-Disposition: attachment; filename="${name}"`,
        '',
        base64Lines(a.data),
      ].join('\r\n');
    }),
  ];
  const body = [
    'This is a MIME message.',
    ...parts.map((p) => `--${boundary}\r\n${p}`),
    `--${boundary}--`,
    '',
  ].join('\r\n');
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}`, 'latin1');
}
