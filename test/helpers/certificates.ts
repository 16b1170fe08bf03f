// Signing certificates for tests: PKCS#12 files made with the openssl CLI (an implementation
// independent of the service's parser), and tenants that have uploaded one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, newTenant, type ApiResponse, type Loose } from './http.ts';

export const TEST_P12_PASSWORD = 'Clave-de-prueba-1';

let dir: string | undefined;
let count = 0;
// RSA key generation is the slow step; one key per size serves every certificate of the process.
const keys = new Map<number, string>();

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

function keyFile(bits: number): string {
  let file = keys.get(bits);
  if (file === undefined) {
    file = `rsa-${bits}.key`;
    openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${bits}`, '-out', file]);
    keys.set(bits, file);
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
