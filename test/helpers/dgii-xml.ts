// Test workspace for DGII XML: a throwaway RSA-2048 key and certificate made with openssl,
// signing, and xmllint verdicts for many documents in one run per XSD.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signXml } from '../../src/xml/index.ts';

export const XSD_DIR = fileURLToPath(new URL('../../src/ecf/xsd/', import.meta.url));

export class XmlWorkspace {
  readonly dir: string;
  readonly key: KeyObject;
  readonly certificate: X509Certificate;
  private files = 0;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'ecf-xml-'));
    const keyFile = join(this.dir, 'key.pem');
    const certFile = join(this.dir, 'cert.pem');
    const made = spawnSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile,
      '-subj', '/CN=Prueba e-CF/O=Distribuidora Caribe Digital SRL/C=DO', '-days', '2',
    ], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    this.key = createPrivateKey(readFileSync(keyFile));
    this.certificate = new X509Certificate(readFileSync(certFile));
  }

  sign(xml: string): string {
    return signXml(xml, this.key, this.certificate);
  }

  /** xmllint --noout --schema <xsd> for each document; true where it validates. */
  xmllint(xsdFile: string, documents: readonly string[]): boolean[] {
    const files = documents.map((xml) => {
      const file = join(this.dir, `doc-${this.files++}.xml`);
      writeFileSync(file, xml, 'utf8');
      return file;
    });
    const run = spawnSync('xmllint', ['--noout', '--schema', join(XSD_DIR, xsdFile), ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const lines = new Set(run.stderr.split('\n'));
    return files.map((file) => {
      const validates = lines.has(`${file} validates`);
      assert.ok(validates || lines.has(`${file} fails to validate`), `xmllint gave no verdict for ${file}:\n${run.stderr}`);
      return validates;
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
