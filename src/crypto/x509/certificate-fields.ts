// What node:crypto's X509Certificate does not expose, read from the certificate's DER: exact
// validity dates, the serial as bytes, the raw issuer and subject names (CRLs are matched on
// them), the extensions with their criticality, KeyUsage, BasicConstraints' path length and
// the CRL distribution points. Certificates come from other taxpayers: every failure is a
// DerError, never a crash.
import type { X509Certificate } from 'node:crypto';
import {
  type DerNode, DerError, TAG, decodeDer, explicit, isContext, isUniversal, readOctets, readOid, readTime, sequence,
} from '../der.ts';
import { EXTENSION } from './oids.ts';

export interface Extension {
  critical: boolean;
  value: Buffer;
}

export interface CertificateFields {
  /** Lowercase hex of the serial's bytes, leading zero bytes removed. */
  serial: string;
  notBefore: Date;
  notAfter: Date;
  issuerName: Buffer;
  subjectName: Buffer;
  signatureAlgorithm: string;
  extensions: ReadonlyMap<string, Extension>;
}

/** Lowercase hex of an INTEGER's content, without the sign-padding zero bytes. */
export function serialHex(node: DerNode | undefined, what: string): string {
  if (!isUniversal(node, TAG.INTEGER) || node.constructed || node.content.length === 0) throw new DerError(`expected INTEGER ${what}`);
  let start = 0;
  while (start < node.content.length - 1 && node.content[start] === 0) start++;
  return node.content.subarray(start).toString('hex');
}

export function readBoolean(node: DerNode | undefined, what: string): boolean {
  if (!isUniversal(node, TAG.BOOLEAN) || node.content.length !== 1) throw new DerError(`expected BOOLEAN ${what}`);
  return node.content[0] !== 0;
}

/** `Extensions ::= SEQUENCE OF Extension`; a repeated extension is refused (RFC 5280 §4.2). */
export function readExtensions(node: DerNode | undefined, what: string): Map<string, Extension> {
  const out = new Map<string, Extension>();
  for (const ext of sequence(node, what)) {
    const parts = sequence(ext, 'Extension', 2);
    const oid = readOid(parts[0], 'extnID');
    const hasCritical = parts.length === 3;
    const critical = hasCritical ? readBoolean(parts[1], 'critical') : false;
    const value = readOctets(parts[hasCritical ? 2 : 1], 'extnValue');
    if (out.has(oid)) throw new DerError(`extension ${oid} appears twice`);
    out.set(oid, { critical, value });
  }
  return out;
}

export function readCertificateFields(cert: X509Certificate): CertificateFields {
  const [tbsNode, algorithm] = sequence(decodeDer(cert.raw, 'certificate'), 'Certificate', 3);
  const tbs = sequence(tbsNode, 'TBSCertificate', 6);
  const skip = isContext(tbs[0], 0) ? 1 : 0;
  const [notBefore, notAfter] = sequence(tbs[skip + 3], 'Validity', 2);
  const issuer = tbs[skip + 2];
  const subject = tbs[skip + 4];
  if (issuer === undefined || subject === undefined) throw new DerError('incomplete TBSCertificate');
  const last = tbs[tbs.length - 1];
  return {
    serial: serialHex(tbs[skip], 'serialNumber'),
    notBefore: readTime(notBefore, 'notBefore'),
    notAfter: readTime(notAfter, 'notAfter'),
    issuerName: issuer.raw,
    subjectName: subject.raw,
    signatureAlgorithm: readOid(sequence(algorithm, 'signatureAlgorithm', 1)[0], 'signatureAlgorithm'),
    extensions: isContext(last, 3) ? readExtensions(explicit(last, 3, 'extensions'), 'Extensions') : new Map(),
  };
}

/** The KeyUsage bits that are set, or null when the certificate has no KeyUsage extension. */
export function keyUsageBits(fields: CertificateFields): ReadonlySet<number> | null {
  const ext = fields.extensions.get(EXTENSION.keyUsage);
  if (ext === undefined) return null;
  const node = decodeDer(ext.value, 'KeyUsage');
  const unused = node.content[0];
  if (!isUniversal(node, TAG.BIT_STRING) || node.constructed || unused === undefined || unused > 7) throw new DerError('bad KeyUsage');
  const bits = new Set<number>();
  for (let i = 1; i < node.content.length; i++) {
    const byte = node.content[i] ?? 0;
    for (let b = 0; b < 8; b++) if ((byte & (0x80 >> b)) !== 0) bits.add((i - 1) * 8 + b);
  }
  return bits;
}

/** BasicConstraints: whether the subject is a CA and how many CAs may follow it (null: no limit). */
export function basicConstraints(fields: CertificateFields): { ca: boolean; pathLength: number | null } {
  const ext = fields.extensions.get(EXTENSION.basicConstraints);
  if (ext === undefined) return { ca: false, pathLength: null };
  const parts = [...sequence(decodeDer(ext.value, 'BasicConstraints'), 'BasicConstraints')];
  const ca = isUniversal(parts[0], TAG.BOOLEAN) ? readBoolean(parts.shift(), 'cA') : false;
  const length = parts[0];
  if (length === undefined) return { ca, pathLength: null };
  const hex = serialHex(length, 'pathLenConstraint');
  return { ca, pathLength: hex.length > 4 ? Number.MAX_SAFE_INTEGER : Number.parseInt(hex, 16) };
}

/**
 * The http(s) URLs of the distribution points whose CRL covers every reason and is issued by
 * the certificate's own issuer. Points naming a cRLIssuer (indirect CRLs) or a subset of
 * reasons are left out: this verifier does not process them.
 */
export function crlDistributionUrls(fields: CertificateFields): string[] {
  const ext = fields.extensions.get(EXTENSION.cRLDistributionPoints);
  if (ext === undefined) return [];
  const urls: string[] = [];
  for (const point of sequence(decodeDer(ext.value, 'CRLDistributionPoints'), 'CRLDistributionPoints')) {
    const parts = sequence(point, 'DistributionPoint');
    if (parts.some((p) => isContext(p, 1) || isContext(p, 2))) continue;
    const name = parts.find((p) => isContext(p, 0));
    const fullName = name === undefined ? undefined : explicit(name, 0, 'distributionPoint');
    if (!isContext(fullName, 0) || !fullName.constructed) continue;
    for (const general of fullName.children) {
      if (!isContext(general, 6) || general.constructed) continue;
      const url = general.content.toString('latin1');
      if (/^https?:\/\//i.test(url)) urls.push(url);
    }
  }
  return urls;
}
