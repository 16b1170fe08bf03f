// Another taxpayer talking to a tenant's receiver (/fe/*) over real HTTP: it authenticates
// with a seed signed by its own certificate, and sends signed e-CF and ACECF documents.
import { spawnSync } from 'node:child_process';
import type { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEcf } from '../../src/ecf/validation/index.ts';
import { buildEcfXml, formatFechaHoraFirma } from '../../src/ecf/xml/index.ts';
import { encodeMultipartFile } from '../../src/dgii/protocol/multipart.ts';
import type { DgiiCredentials } from '../../src/dgii/protocol/index.ts';
import { el, parseXml, serializeXml, signXml, textAt } from '../../src/xml/index.ts';
import { sampleEcf } from '../fixtures/ecf.ts';
import { XSD_DIR } from './dgii-xml.ts';
import { call, type ApiResponse, type Loose } from './http.ts';
import { nextEncf } from './dgii-protocol.ts';

export const SENDER_RNC = '131880681';
export const SENDER_SUBJECT = `/CN=Distribuidora Caribe Digital SRL/serialNumber=${SENDER_RNC}`;

export function receiverBase(env: string, rnc: string): string {
  return `/${env}/receptor/${rnc}/fe`;
}

export function multipartXml(xml: string | Buffer, field = 'xml'): { body: Buffer; headers: Record<string, string> } {
  const encoded = encodeMultipartFile({ field, filename: 'documento.xml', content: xml });
  return { body: encoded.body, headers: { 'content-type': encoded.contentType } };
}

export interface EcfOptions {
  rncComprador: string;
  encf?: string;
  rncEmisor?: string;
  /** Edits the unsigned XML (e.g. to break the schema) before it is signed. */
  beforeSigning?: (xml: string) => string;
}

/** A signed type-31 e-CF addressed to `rncComprador`, built by the service's own builder. */
export function signedEcfTo(credentials: DgiiCredentials, o: EcfOptions): { xml: string; encf: string } {
  const encf = o.encf ?? nextEncf(31);
  const result = validateEcf(sampleEcf(31, {
    Encabezado: { IdDoc: { eNCF: encf }, Emisor: { RNCEmisor: o.rncEmisor ?? SENDER_RNC }, Comprador: { RNCComprador: o.rncComprador } },
  }));
  if (!result.ok) throw new Error(`fixture is invalid: ${JSON.stringify(result.errors)}`);
  const unsigned = buildEcfXml(31, result.document.ecf, formatFechaHoraFirma(new Date()));
  return { xml: signXml(o.beforeSigning?.(unsigned) ?? unsigned, credentials.privateKey, credentials.certificate), encf };
}

export interface AcecfFields {
  rncEmisor: string;
  encf: string;
  fechaEmision: string;
  montoTotal: string;
  rncComprador: string;
  estado: 1 | 2;
  detalleMotivoRechazo?: string;
}

export function signedAcecf(credentials: DgiiCredentials, f: AcecfFields): string {
  const xml = serializeXml(el('ACECF', el('DetalleAprobacionComercial',
    el('Version', '1.0'),
    el('RNCEmisor', f.rncEmisor),
    el('eNCF', f.encf),
    el('FechaEmision', f.fechaEmision),
    el('MontoTotal', f.montoTotal),
    el('RNCComprador', f.rncComprador),
    el('Estado', String(f.estado)),
    ...(f.detalleMotivoRechazo === undefined ? [] : [el('DetalleMotivoRechazo', f.detalleMotivoRechazo)]),
    el('FechaHoraAprobacionComercial', formatFechaHoraFirma(new Date())),
  )), { declaration: true });
  return signXml(xml, credentials.privateKey, credentials.certificate);
}

/**
 * A signed document whose X509Data also carries `issuers` after the signer's certificate, as
 * signers whose CA is an intermediate send it. KeyInfo is outside what the signature covers.
 */
export function withIssuers(signedXml: string, issuers: readonly X509Certificate[]): string {
  if (issuers.length === 0) return signedXml;
  const extra = issuers.map((c) => `<X509Certificate>${c.raw.toString('base64')}</X509Certificate>`).join('');
  return signedXml.replace(/<X509Certificate>[^<]*<\/X509Certificate>/, (signer) => `${signer}${extra}`);
}

/** Estado and CodigoMotivoNoRecibido of an ARECF. */
export function arecfOutcome(xml: string): { estado: string | undefined; motivo: string | undefined; encf: string | undefined; rncEmisor: string | undefined; rncComprador: string | undefined } {
  const root = parseXml(xml).root;
  const at = (name: string) => textAt(root, ['DetalleAcusedeRecibo', name]);
  return { estado: at('Estado'), motivo: at('CodigoMotivoNoRecibido'), encf: at('eNCF'), rncEmisor: at('RNCEmisor'), rncComprador: at('RNCComprador') };
}

/** `xmllint --noout --schema` verdict for one document. */
export function xmllintValidates(xsdFile: string, xml: string): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fe-xmllint-'));
  try {
    const file = join(dir, 'doc.xml');
    writeFileSync(file, xml, 'utf8');
    const run = spawnSync('xmllint', ['--noout', '--schema', join(XSD_DIR, xsdFile), file], { encoding: 'utf8' });
    return { ok: run.status === 0, output: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A sender with its own certificate, pointed at one receiver base (`/{env}/receptor/{rnc}/fe`). */
export class FeSender {
  readonly url: string;
  readonly base: string;
  readonly credentials: DgiiCredentials;
  /** Intermediate certificates sent with the signer's in every seed it signs. */
  readonly issuers: readonly X509Certificate[];

  constructor(url: string, base: string, credentials: DgiiCredentials, issuers: readonly X509Certificate[] = []) {
    this.url = url;
    this.base = base;
    this.credentials = credentials;
    this.issuers = issuers;
  }

  seed(): Promise<ApiResponse<Loose>> {
    return call(this.url, 'GET', `${this.base}/autenticacion/api/semilla`);
  }

  /** Signs a seed's XML with this sender's certificate. */
  sign(seedXml: string): string {
    return withIssuers(signXml(seedXml, this.credentials.privateKey, this.credentials.certificate), this.issuers);
  }

  /** `accept` sets the request's Accept header (validacioncertificado answers XML when it asks). */
  validate(signedSeed: string | Buffer, accept?: string): Promise<ApiResponse<Loose>> {
    const { body, headers } = multipartXml(signedSeed);
    return call(this.url, 'POST', `${this.base}/autenticacion/api/validacioncertificado`, { body, headers: accept === undefined ? headers : { ...headers, accept } });
  }

  /** Seed → signed seed → token; throws unless every step succeeds. */
  async token(): Promise<string> {
    const seed = await this.seed();
    if (seed.status !== 200) throw new Error(`seed: ${seed.status} ${seed.text}`);
    const res = await this.validate(this.sign(seed.text));
    if (res.status !== 200) throw new Error(`validacioncertificado: ${res.status} ${res.text}`);
    return res.body.token as string;
  }

  send(path: 'recepcion' | 'aprobacioncomercial', xml: string | Buffer, token: string | null, extraHeaders: Record<string, string> = {}): Promise<ApiResponse<Loose>> {
    const { body, headers } = multipartXml(xml);
    const auth: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
    return call(this.url, 'POST', `${this.base}/${path}/api/ecf`, { body, headers: { ...headers, ...auth, ...extraHeaders } });
  }
}
