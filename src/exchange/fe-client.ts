import type { KeyObject, X509Certificate } from 'node:crypto';
import { encodeMultipartFile } from '../dgii/protocol/multipart.ts';
import type { DirectoryEntry } from '../dgii/protocol/exchange-answers.ts';
import { errorMessage } from '../errors.ts';
import { NotASeedError, signSeedXml } from '../ecf/xml/seed-check.ts';
import { egress, type EgressAnswer, ExchangeError } from './egress.ts';

// The emisor's side of DGII's emisor-receptor standard, spoken to another taxpayer's receiver
// at the URLs DGII's directory publishes: seed (GET {urlOpcional}/fe/autenticacion/api/semilla),
// signed seed for a token (POST …/validacioncertificado), then the e-CF
// (POST {urlRecepcion}/fe/recepcion/api/ecf, answered by a signed ARECF) or a commercial approval
// (POST {urlAceptacion}/fe/aprobacioncomercial/api/ecf). Uploads are multipart, field `xml`.
// DGII's v1.6 makes the authentication step optional: a receiver whose directory entry gives no
// authentication URL (urlOpcional empty) takes the upload without a token, so none is asked for.

export interface FeCredential {
  privateKey: KeyObject;
  certificate: X509Certificate;
  /** Intermediates for KeyInfo after the leaf. */
  chain?: readonly X509Certificate[];
}

export interface FeClientOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

const MAX_ANSWER_BYTES = 1024 * 1024;
const TRANSIENT = new Set([408, 425, 429]);

function snippet(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 300)}…` : t;
}

function failure(answer: EgressAnswer, purpose: string): ExchangeError {
  const detail = snippet(answer.text);
  return new ExchangeError(`the receiver answered HTTP ${answer.status} while ${purpose}${detail === '' ? '' : `: ${detail}`}`, answer.status >= 500 || TRANSIENT.has(answer.status));
}

function tokenOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body !== 'object' || body === null) return null;
    const key = Object.keys(body).find((k) => k.toLowerCase() === 'token');
    const token = key === undefined ? undefined : (body as Record<string, unknown>)[key];
    return typeof token === 'string' && /^[\x21-\x7e]{1,4096}$/.test(token) ? token : null;
  } catch {
    return null;
  }
}

export class FeClient {
  private readonly options: FeClientOptions;

  constructor(options: FeClientOptions) {
    this.options = options;
  }

  private async call(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body: Buffer | undefined, signal: AbortSignal): Promise<EgressAnswer> {
    return egress({ method, url, headers, ...(body === undefined ? {} : { body }) }, { ...this.options, signal, maxAnswerBytes: MAX_ANSWER_BYTES });
  }

  /** Seed, signed seed, token: the receiver's Bearer token for this credential; null when the receiver publishes no authentication. */
  async token(entry: DirectoryEntry, credential: FeCredential, signal: AbortSignal): Promise<string | null> {
    if (entry.urlOpcional === null) return null;
    const base = `${entry.urlOpcional}/fe/autenticacion/api`;
    const seed = await this.call('GET', `${base}/semilla`, { accept: 'application/xml, text/xml' }, undefined, signal);
    if (seed.status !== 200) throw failure(seed, 'requesting a seed');
    let signed: string;
    try {
      signed = signSeedXml(seed.text, credential.privateKey, credential.certificate, credential.chain);
    } catch (err) {
      if (err instanceof NotASeedError) throw new ExchangeError(`the receiver's answer to the seed request is ${err.message}`, false);
      throw new ExchangeError(`the receiver's seed could not be signed: ${errorMessage(err)}`, false);
    }
    const upload = encodeMultipartFile({ field: 'xml', filename: 'semilla.xml', content: signed });
    const answer = await this.call('POST', `${base}/validacioncertificado`, { 'content-type': upload.contentType, accept: 'application/json' }, upload.body, signal);
    if (answer.status !== 200) throw failure(answer, 'validating the signed seed');
    const token = tokenOf(answer.text);
    if (token === null) throw new ExchangeError(`the receiver's answer to the signed seed carries no token: ${snippet(answer.text)}`, false);
    return token;
  }

  private async upload(url: string, purpose: string, token: string | null, fileName: string, xml: string, signal: AbortSignal): Promise<EgressAnswer> {
    const upload = encodeMultipartFile({ field: 'xml', filename: fileName, content: xml });
    const headers: Record<string, string> = { 'content-type': upload.contentType, accept: 'application/xml, application/json' };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const answer = await this.call('POST', url, headers, upload.body, signal);
    if (answer.status < 200 || answer.status >= 300) throw failure(answer, purpose);
    return answer;
  }

  /** Posts the signed e-CF; the answer's body is the receiver's ARECF, to be checked by the caller. */
  async sendEcf(entry: DirectoryEntry, credential: FeCredential, fileName: string, xml: string, signal: AbortSignal): Promise<string> {
    const token = await this.token(entry, credential, signal);
    return (await this.upload(`${entry.urlRecepcion}/fe/recepcion/api/ecf`, `sending ${fileName}`, token, fileName, xml, signal)).text;
  }

  /** Posts a signed ACECF to the emisor's approval service; any 2xx is taken. */
  async sendApproval(entry: DirectoryEntry, credential: FeCredential, fileName: string, xml: string, signal: AbortSignal): Promise<void> {
    const token = await this.token(entry, credential, signal);
    await this.upload(`${entry.urlAceptacion}/fe/aprobacioncomercial/api/ecf`, `sending the commercial approval ${fileName}`, token, fileName, xml, signal);
  }
}
