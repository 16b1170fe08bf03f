// A small certification hierarchy made with `openssl ca` (an implementation independent of the
// service's verifier): a root, intermediates, leaves with chosen validity, KeyUsage and CRL
// distribution points, revocations and the CRLs that list them. Like certificates.ts, it runs
// openssl in a temporary directory; one RSA key per role keeps key generation (the slow step)
// to a handful per process.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DgiiCredentials } from '../../src/dgii/protocol/index.ts';

export interface Issued extends DgiiCredentials {
  name: string;
  certificatePath: string;
  pem: string;
}

export interface IssueOptions {
  /** Days from now; negative for the past. */
  startDays?: number;
  endDays?: number;
  ca?: boolean;
  /** The keyUsage of openssl's extension syntax; null leaves the extension out. */
  keyUsage?: string | null;
  /** CRL distribution point written in the certificate. */
  crlUrl?: string;
  /** Another key than the shared one of its role. */
  ownKey?: boolean;
}

const stamp = (days: number) => `${new Date(Date.now() + days * 86_400_000).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;

export class TestPki {
  readonly dir = mkdtempSync(join(tmpdir(), 'ecf-test-pki-'));
  private count = 0;
  private readonly keys = new Map<string, string>();
  /** The key file of each certificate issued, by name. */
  private readonly issuedKeys = new Map<string, string>();

  private openssl(args: readonly string[]): void {
    execFileSync('openssl', args, { cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
  }

  private key(role: string): string {
    let file = this.keys.get(role);
    if (file === undefined) {
      file = `key-${role}.pem`;
      this.openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', file]);
      this.keys.set(role, file);
    }
    return file;
  }

  /** The `openssl ca` configuration of the CA `issuer` (its own database, so revocations are per CA). */
  private caConfig(issuer: Issued | null, name: string): string {
    const ca = issuer?.name ?? name;
    const cnf = join(this.dir, `${ca}.cnf`);
    try {
      readFileSync(cnf);
    } catch {
      writeFileSync(join(this.dir, `${ca}.index`), '');
      writeFileSync(join(this.dir, `${ca}.serial`), `${(1000 + this.count).toString(16).padStart(4, '0')}\n`);
      writeFileSync(join(this.dir, `${ca}.crlnumber`), '01\n');
      writeFileSync(cnf, [
        '[ca]', 'default_ca = ca_default',
        '[ca_default]', `database = ${ca}.index`, `serial = ${ca}.serial`, `crlnumber = ${ca}.crlnumber`, 'new_certs_dir = .',
        'default_md = sha256', 'policy = policy_any', 'unique_subject = no', 'copy_extensions = none', 'default_crl_days = 1',
        '[policy_any]', 'commonName = supplied', 'serialNumber = optional', 'organizationName = optional',
      ].join('\n'));
    }
    return cnf;
  }

  /** A certificate for `subject` (openssl's /CN=…/serialNumber=… form), issued by `issuer` or self-signed when null. */
  issue(subject: string, issuer: Issued | null, o: IssueOptions = {}): Issued {
    const name = `c${++this.count}`;
    const role = o.ownKey === true ? name : o.ca === true ? (issuer === null ? 'root' : 'ca') : 'leaf';
    const key = this.key(role === 'ca' ? `ca-${name}` : role);
    const ext = [
      '[ext]',
      o.ca === true ? 'basicConstraints = critical, CA:TRUE' : 'basicConstraints = CA:FALSE',
      ...(o.keyUsage === null ? [] : [`keyUsage = critical, ${o.keyUsage ?? (o.ca === true ? 'keyCertSign, cRLSign' : 'digitalSignature, nonRepudiation')}`]),
      'subjectKeyIdentifier = hash',
      ...(issuer === null ? [] : ['authorityKeyIdentifier = keyid']),
      ...(o.crlUrl === undefined ? [] : [`crlDistributionPoints = URI:${o.crlUrl}`]),
    ].join('\n');
    writeFileSync(join(this.dir, `${name}.ext`), ext);
    this.openssl(['req', '-new', '-key', key, '-subj', subject, '-utf8', '-out', `${name}.csr`]);
    const cnf = this.caConfig(issuer, name);
    const signer = issuer === null ? ['-selfsign', '-keyfile', key] : ['-cert', issuer.certificatePath, '-keyfile', this.keyOf(issuer)];
    this.openssl(['ca', '-batch', '-notext', '-utf8', '-config', cnf, ...signer, '-in', `${name}.csr`, '-extfile', `${name}.ext`, '-extensions', 'ext',
      '-startdate', stamp(o.startDays ?? -1), '-enddate', stamp(o.endDays ?? 30), '-out', `${name}.pem`]);
    const certificatePath = join(this.dir, `${name}.pem`);
    const pem = readFileSync(certificatePath, 'utf8');
    this.issuedKeys.set(name, key);
    return { name, certificatePath, pem, certificate: new X509Certificate(pem), privateKey: createPrivateKey(readFileSync(join(this.dir, key))) };
  }

  private keyOf(cert: Issued): string {
    const key = this.issuedKeys.get(cert.name);
    if (key === undefined) throw new Error(`unknown certificate ${cert.name}`);
    return key;
  }

  /** Marks `cert`, issued by `issuer`, as revoked in `issuer`'s database. */
  revoke(cert: Issued, issuer: Issued): void {
    this.openssl(['ca', '-config', this.caConfig(issuer, issuer.name), '-cert', issuer.certificatePath, '-keyfile', this.keyOf(issuer), '-revoke', cert.certificatePath]);
  }

  /** `issuer`'s current CRL, DER. */
  crl(issuer: Issued): Buffer {
    const out = `${issuer.name}-${++this.count}.crl`;
    this.openssl(['ca', '-gencrl', '-config', this.caConfig(issuer, issuer.name), '-cert', issuer.certificatePath, '-keyfile', this.keyOf(issuer), '-out', out]);
    this.openssl(['crl', '-in', out, '-outform', 'DER', '-out', `${out}.der`]);
    return readFileSync(join(this.dir, `${out}.der`));
  }

  /** `cert` with its key as a PKCS#12 file, with `others` (its chain, in any order) as extra certificates. */
  p12(cert: Issued, others: readonly Issued[], password: string): Buffer {
    const out = `${cert.name}-${++this.count}.p12`;
    const extra = others.length === 0 ? [] : ['-certfile', this.bundle(others, `${out}.chain.pem`)];
    this.openssl(['pkcs12', '-export', '-inkey', this.keyOf(cert), '-in', cert.certificatePath, ...extra, '-passout', `pass:${password}`, '-out', out]);
    return readFileSync(join(this.dir, out));
  }

  /** A PEM bundle file of these certificates. */
  bundle(certs: readonly Issued[], name = 'bundle.pem'): string {
    const file = join(this.dir, name);
    writeFileSync(file, certs.map((c) => c.pem).join('\n'));
    return file;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A loopback HTTP server answering GET /<name> with the bytes set for it, 404 otherwise; counts requests per path. */
export interface CrlServer {
  url: string;
  files: Map<string, Buffer>;
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startCrlServer(): Promise<CrlServer> {
  const files = new Map<string, Buffer>();
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').slice(1);
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const body = files.get(path);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/pkix-crl' }).end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    files,
    hits,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
