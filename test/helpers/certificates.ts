// Signing certificates for tests: PKCS#12 files made with the openssl CLI (an implementation
// independent of the service's parser), and tenants that have uploaded one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeDer, explicit, readOctets, sequence } from '../../src/crypto/der.ts';
import { call, newTenant, type ApiResponse, type Loose } from './http.ts';

export const TEST_P12_PASSWORD = 'Clave-de-prueba-1';

let dir: string | undefined;
let count = 0;
// RSA key generation is the slow step; one key per size serves every certificate of the process.

function workDir(): string {
  if (dir === undefined) {
    const created = mkdtempSync(join(tmpdir(), 'ecf-test-certs-'));
    dir = created;
    process.once('exit', () => rmSync(created, { recursive: true, force: true }));
  }
  return dir;
}

function openssl(args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: workDir(), stdio: ['ignore', 'ignore', 'pipe'] });
}

const keys = new Map<string, string>();

/** An RSA key file; `label` gives a second, different key of the same size. */
function keyFile(bits: number, label = 'main'): string {
  const id = `${bits}-${label}`;
  let file = keys.get(id);
  if (file === undefined) {
    file = `rsa-${id}.key`;
    openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${bits}`, '-out', file]);
    keys.set(id, file);
  }
  return file;
}

export interface TestCertificateOptions {
  /** The subject's CN. */
  name?: string;
  /** Validity from now; negative makes a certificate that has already expired. */
  days?: number;
  bits?: number;
  password?: string;
  /** Extra `openssl pkcs12 -export` arguments, e.g. ['-legacy'] for RC2-40. */
  exportArgs?: readonly string[];
}

export interface TestCertificate {
  p12: Buffer;
  password: string;
  /** Absolute path of the certificate in PEM (for xmlsec1 --trusted-pem). */
  certificatePath: string;
  subject: string;
}

/** A self-signed certificate whose subject is /CN=<name>/serialNumber=<rnc>, as a .p12. */
export function makeTestCertificate(rnc: string, options: TestCertificateOptions = {}): TestCertificate {
  const name = `cert-${++count}`;
  const key = keyFile(options.bits ?? 2048);
  const subject = `/CN=${options.name ?? `Empresa ${rnc} SRL`}/serialNumber=${rnc}`;
  const password = options.password ?? TEST_P12_PASSWORD;
  openssl(['req', '-new', '-key', key, '-subj', subject, '-utf8', '-out', `${name}.csr`]);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-signkey', key, '-days', String(options.days ?? 30), '-out', `${name}.pem`]);
  openssl(['pkcs12', '-export', '-inkey', key, '-in', `${name}.pem`, '-passout', `pass:${password}`, ...(options.exportArgs ?? []), '-out', `${name}.p12`]);
  return { p12: readFileSync(join(workDir(), `${name}.p12`)), password, certificatePath: join(workDir(), `${name}.pem`), subject };
}

export function uploadCertificate(baseUrl: string, accessToken: string, cert: Pick<TestCertificate, 'p12' | 'password'>): Promise<ApiResponse<Loose>> {
  return call(baseUrl, 'POST', '/api/certificates', {
    json: { p12: cert.p12.toString('base64'), password: cert.password },
    headers: { authorization: `Bearer ${accessToken}` },
  });
}

/** A fresh tenant (newTenant) whose signing certificate, made for its RNC, is uploaded and active. */
export async function newTenantWithCertificate(baseUrl: string, overrides: Parameters<typeof newTenant>[1] = {}) {
  const tenant = await newTenant(baseUrl, overrides);
  const certificate = makeTestCertificate(tenant.rnc);
  const res = await uploadCertificate(baseUrl, tenant.accessToken, certificate);
  if (res.status !== 201) throw new Error(`certificate upload failed: ${res.status} ${res.text}`);
  return { ...tenant, certificate, certificateId: res.body.data.id as string };
}

/**
 * A self-signed certificate of the tenant's RNC that becomes valid only `startsInDays` from now.
 * `openssl x509` of OpenSSL 3.0 cannot set notBefore; `openssl ca -selfsign -startdate` can.
 */
export function makeNotYetValidCertificate(rnc: string, startsInDays = 2): TestCertificate {
  const name = `future-${++count}`;
  const key = keyFile(2048);
  const subject = `/CN=Empresa ${rnc} SRL/serialNumber=${rnc}`;
  const stamp = (days: number) => `${new Date(Date.now() + days * 86_400_000).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  writeFileSync(join(workDir(), `${name}.index`), '');
  writeFileSync(join(workDir(), `${name}.serial`), '01\n');
  writeFileSync(join(workDir(), `${name}.cnf`), [
    '[ca]', 'default_ca = ca_default',
    '[ca_default]', `database = ${name}.index`, `serial = ${name}.serial`, 'new_certs_dir = .', 'default_md = sha256',
    'policy = policy_any', 'unique_subject = no',
    '[policy_any]', 'commonName = supplied', 'serialNumber = supplied',
  ].join('\n'));
  openssl(['req', '-new', '-key', key, '-subj', subject, '-utf8', '-out', `${name}.csr`]);
  openssl(['ca', '-batch', '-notext', '-config', `${name}.cnf`, '-selfsign', '-keyfile', key, '-in', `${name}.csr`,
    '-startdate', stamp(startsInDays), '-enddate', stamp(startsInDays + 30), '-out', `${name}.pem`]);
  openssl(['pkcs12', '-export', '-inkey', key, '-in', `${name}.pem`, '-passout', `pass:${TEST_P12_PASSWORD}`, '-out', `${name}.p12`]);
  return { p12: readFileSync(join(workDir(), `${name}.p12`)), password: TEST_P12_PASSWORD, certificatePath: join(workDir(), `${name}.pem`), subject };
}

// A minimal DER writer: openssl refuses to export a key with a certificate it does not match,
// so such a file is assembled from two files openssl did export.
function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length = body.length < 0x80 ? Buffer.from([body.length]) : (() => {
    const bytes: number[] = [];
    for (let n = body.length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
    return Buffer.from([0x80 | bytes.length, ...bytes]);
  })();
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

/** The ContentInfos (bags' containers) of a PKCS#12 file. */
function contentInfos(p12: Buffer): Buffer[] {
  const pfx = sequence(decodeDer(p12, 'PFX'), 'PFX');
  const authSafe = readOctets(explicit(sequence(pfx[1], 'authSafe')[1], 0, 'content'), 'content');
  return sequence(decodeDer(authSafe, 'AuthenticatedSafe'), 'AuthenticatedSafe').map((n) => Buffer.from(n.raw));
}

/** A PKCS#12 (no MAC) holding the tenant's certificate and a private key that is not its own. */
export function makeMismatchedP12(rnc: string): TestCertificate {
  const cert = makeTestCertificate(rnc);
  const name = `mismatch-${++count}`;
  openssl(['pkcs12', '-export', '-nocerts', '-inkey', keyFile(2048, 'other'), '-passout', `pass:${cert.password}`, '-out', `${name}-key.p12`]);
  openssl(['pkcs12', '-export', '-nokeys', '-in', cert.certificatePath, '-passout', `pass:${cert.password}`, '-out', `${name}-cert.p12`]);
  const infos = [`${name}-key.p12`, `${name}-cert.p12`].flatMap((f) => contentInfos(readFileSync(join(workDir(), f))));
  const DATA_OID = Buffer.from('06092a864886f70d010701', 'hex');
  const p12 = tlv(0x30, Buffer.from('020103', 'hex'), tlv(0x30, DATA_OID, tlv(0xa0, tlv(0x04, tlv(0x30, ...infos)))));
  return { ...cert, p12 };
}
