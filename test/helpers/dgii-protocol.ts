// Test material for the DGII protocol: openssl-made certificates, signed e-CF and RFCE
// documents built from the fixtures, and a running simulator with a client pointed at it.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEcf } from '../../src/ecf/validation/index.ts';
import { buildEcfXml, buildRfceXml, formatFechaHoraFirma, securityCodeOf } from '../../src/ecf/xml/index.ts';
import { DgiiClient, type DgiiClientOptions, type DgiiCredentials } from '../../src/dgii/protocol/index.ts';
import { createDgiiSimulator, type DgiiSimulator } from '../../src/dgii/simulator/index.ts';
import { createLogger } from '../../src/log.ts';
import { signXml } from '../../src/xml/index.ts';
import { sampleEcf, type JsonObject } from '../fixtures/ecf.ts';

export const EMISOR_RNC = '131880681';
export const EMISOR_SUBJECT = `/CN=Empresa Prueba SRL/serialNumber=${EMISOR_RNC}`;

/** Certificates made once per test file in a temporary directory. */
export class CertificateFactory {
  private readonly dir = mkdtempSync(join(tmpdir(), 'dgii-protocol-'));
  private count = 0;

  /** RSA key and self-signed certificate; `days: -1` makes one that has already expired. */
  make(subject: string, options: { days?: number; bits?: number } = {}): DgiiCredentials {
    const name = `c${++this.count}`;
    const key = join(this.dir, `${name}.key`);
    const cert = join(this.dir, `${name}.pem`);
    const run = (args: string[]): void => {
      execFileSync('openssl', args, { cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    };
    run(['req', '-new', '-newkey', `rsa:${options.bits ?? 2048}`, '-nodes', '-keyout', key, '-out', `${name}.csr`, '-subj', subject, '-utf8']);
    run(['x509', '-req', '-in', `${name}.csr`, '-signkey', key, '-days', String(options.days ?? 30), '-out', cert]);
    return { privateKey: createPrivateKey(readFileSync(key)), certificate: new X509Certificate(readFileSync(cert)) };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

let sequence = 0;

/** A fresh eNCF of the type, unique within the test process. */
export function nextEncf(tipo: 31 | 32 = 31): string {
  sequence++;
  return `E${tipo}${String(Date.now() % 1e6).padStart(6, '0')}${String(sequence).padStart(4, '0')}`;
}

function normalised(tipo: 31 | 32, overrides: JsonObject) {
  const result = validateEcf(sampleEcf(tipo, overrides));
  if (!result.ok) throw new Error(`fixture is invalid: ${JSON.stringify(result.errors)}`);
  return result.document.ecf;
}

export interface DocumentOptions {
  encf?: string;
  rncEmisor?: string;
  /** Free text carried in NombreComercial, where scenario markers can go. */
  nombreComercial?: string;
}

function overridesOf(o: DocumentOptions, tipo: 31 | 32): JsonObject {
  return {
    Encabezado: {
      IdDoc: { eNCF: o.encf ?? nextEncf(tipo) },
      Emisor: { RNCEmisor: o.rncEmisor ?? EMISOR_RNC, ...(o.nombreComercial === undefined ? {} : { NombreComercial: o.nombreComercial }) },
    },
  };
}

/** A signed type-31 e-CF built by the service's own builder. */
export function signedEcf(credentials: DgiiCredentials, options: DocumentOptions = {}): { xml: string; encf: string; rncEmisor: string } {
  const ecf = normalised(31, overridesOf(options, 31));
  const xml = signXml(buildEcfXml(31, ecf, formatFechaHoraFirma(new Date())), credentials.privateKey, credentials.certificate);
  const idDoc = (ecf.Encabezado as JsonObject).IdDoc as JsonObject;
  const emisor = (ecf.Encabezado as JsonObject).Emisor as JsonObject;
  return { xml, encf: String(idDoc.eNCF), rncEmisor: String(emisor.RNCEmisor) };
}

/** A signed type-32 e-CF and the signed RFCE summarising it. */
export function signedRfce(credentials: DgiiCredentials, options: DocumentOptions = {}): { ecfXml: string; rfceXml: string; encf: string } {
  const ecf = normalised(32, overridesOf(options, 32));
  const ecfXml = signXml(buildEcfXml(32, ecf, formatFechaHoraFirma(new Date())), credentials.privateKey, credentials.certificate);
  const rfceXml = signXml(buildRfceXml(ecf, securityCodeOf(ecfXml)), credentials.privateKey, credentials.certificate);
  const idDoc = (ecf.Encabezado as JsonObject).IdDoc as JsonObject;
  return { ecfXml, rfceXml, encf: String(idDoc.eNCF) };
}

export interface RunningSimulator {
  simulator: DgiiSimulator;
  url: string;
  /** A client of the simulator; `credentials` maps tenant ids to their certificate. */
  client(credentials: Record<number, DgiiCredentials>, options?: Partial<DgiiClientOptions>): DgiiClient;
}

export async function startSimulator(options: { processingMs: number; tokenTtlMs?: number }): Promise<RunningSimulator> {
  const simulator = createDgiiSimulator({ ...options, log: createLogger('silent') });
  const { url } = await simulator.listen(0, '127.0.0.1');
  return {
    simulator,
    url,
    client: (credentials, overrides = {}) =>
      new DgiiClient({
        baseUrls: simulator.baseUrls(url),
        fcBaseUrls: simulator.fcBaseUrls(url),
        timeoutMs: 5_000,
        credentials: async (tenantId) => credentials[tenantId] ?? null,
        ...overrides,
      }),
  };
}
