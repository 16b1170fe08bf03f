// Certificate revocation lists (RFC 5280 §5): parsed from DER or PEM, checked against the
// issuing CA's certificate (name, signature, cRLSign) and for freshness and scope, then
// searched for a serial. A CRL can hold hundreds of thousands of entries, so the list is walked entry by
// entry (shallowChildren) rather than decoded as one tree.
import { verify, type X509Certificate } from 'node:crypto';
import { DerError, TAG, decodeDer, explicit, readOid, readTime, sequence, shallowChildren, type DerHeader } from '../der.ts';
import { type CertificateFields, type Extension, keyUsageBits, readExtensions, serialHex } from './certificate-fields.ts';
import { CRL_SIGNATURE_DIGESTS, EXTENSION, KEY_USAGE, UNDERSTOOD_CRL_EXTENSIONS } from './oids.ts';

/** Which certificates a CRL covers (its IssuingDistributionPoint). */
export type CrlScope = 'all' | 'endEntity' | 'ca';

export interface Crl {
  issuerName: Buffer;
  thisUpdate: Date;
  nextUpdate: Date | null;
  /** Serials as certificate-fields' serialHex writes them. */
  revoked: ReadonlySet<string>;
  scope: CrlScope;
  tbs: Buffer;
  signatureAlgorithm: string;
  signature: Buffer;
}

export class CrlError extends Error {
  override readonly name = 'CrlError';
}

// A CRL issued a little in the future by a CA whose clock runs ahead is still usable.
const CLOCK_SKEW_MS = 5 * 60_000;

const PEM = /-----BEGIN X509 CRL-----([^-]*)-----END X509 CRL-----/;

function isTime(h: DerHeader | undefined): h is DerHeader {
  return h !== undefined && h.cls === 'universal' && (h.tag === TAG.UTC_TIME || h.tag === TAG.GENERALIZED_TIME);
}

function refuseUnknownCritical(extensions: ReadonlyMap<string, Extension>, what: string): void {
  for (const [oid, ext] of extensions) {
    if (ext.critical && !UNDERSTOOD_CRL_EXTENSIONS.has(oid) && oid !== EXTENSION.issuingDistributionPoint) {
      throw new CrlError(`${what} has a critical extension this verifier does not process (${oid})`);
    }
  }
}

/** The IssuingDistributionPoint's scope; partitions this verifier cannot use are refused. */
function scopeOf(extensions: ReadonlyMap<string, Extension>): CrlScope {
  if (extensions.has(EXTENSION.deltaCRLIndicator)) throw new CrlError('a delta CRL is not a complete list');
  const idp = extensions.get(EXTENSION.issuingDistributionPoint);
  if (idp === undefined) return 'all';
  const flag = (tag: number) => sequence(decodeDer(idp.value, 'IssuingDistributionPoint'), 'IssuingDistributionPoint')
    .some((n) => n.cls === 'context' && n.tag === tag && (tag === 3 || n.content[0] !== 0));
  if (flag(3) || flag(4) || flag(5)) throw new CrlError('the CRL covers only some reasons, other issuers or attribute certificates');
  if (flag(1)) return 'endEntity';
  if (flag(2)) return 'ca';
  return 'all';
}

function readRevoked(list: DerHeader): Set<string> {
  const revoked = new Set<string>();
  for (const entry of shallowChildren(list.raw, 'revokedCertificates')) {
    const [serial, , extensions] = sequence(decodeDer(entry.raw, 'CRL entry'), 'CRL entry', 2);
    if (extensions !== undefined) {
      const entryExtensions = readExtensions(extensions, 'crlEntryExtensions');
      if (entryExtensions.has(EXTENSION.certificateIssuer)) throw new CrlError('an indirect CRL entry (certificateIssuer)');
      refuseUnknownCritical(entryExtensions, 'a CRL entry');
    }
    revoked.add(serialHex(serial, 'userCertificate'));
  }
  return revoked;
}

function parseDer(der: Buffer): Crl {
  const [tbs, algorithm, signature] = shallowChildren(der, 'CertificateList');
  if (tbs === undefined || algorithm === undefined || signature === undefined) throw new CrlError('incomplete CertificateList');
  const signatureAlgorithm = readOid(sequence(decodeDer(algorithm.raw, 'signatureAlgorithm'), 'signatureAlgorithm', 1)[0], 'signatureAlgorithm');
  const bits = decodeDer(signature.raw, 'signatureValue');
  if (bits.tag !== TAG.BIT_STRING || bits.constructed || bits.content[0] !== 0) throw new CrlError('bad signatureValue');

  const items = shallowChildren(tbs.raw, 'TBSCertList');
  let i = items[0]?.tag === TAG.INTEGER && items[0].cls === 'universal' ? 1 : 0;
  const inner = items[i++];
  if (inner === undefined || readOid(sequence(decodeDer(inner.raw, 'signature'), 'signature', 1)[0], 'signature') !== signatureAlgorithm) {
    throw new CrlError('the inner and outer signature algorithms differ');
  }
  const issuer = items[i++];
  const thisUpdate = items[i++];
  if (issuer === undefined || !isTime(thisUpdate)) throw new CrlError('incomplete TBSCertList');
  const next = isTime(items[i]) ? items[i++] : undefined;
  const list = items[i]?.cls === 'universal' && items[i]?.tag === TAG.SEQUENCE ? items[i++] : undefined;
  const extensionsNode = items[i]?.cls === 'context' && items[i]?.tag === 0 ? items[i++] : undefined;
  if (i !== items.length) throw new CrlError('unexpected fields in TBSCertList');
  const extensions = extensionsNode === undefined
    ? new Map<string, Extension>()
    : readExtensions(explicit(decodeDer(extensionsNode.raw, 'crlExtensions'), 0, 'crlExtensions'), 'crlExtensions');
  refuseUnknownCritical(extensions, 'the CRL');
  return {
    issuerName: issuer.raw,
    thisUpdate: readTime(decodeDer(thisUpdate.raw, 'thisUpdate'), 'thisUpdate'),
    nextUpdate: next === undefined ? null : readTime(decodeDer(next.raw, 'nextUpdate'), 'nextUpdate'),
    revoked: list === undefined ? new Set() : readRevoked(list),
    scope: scopeOf(extensions),
    tbs: tbs.raw,
    signatureAlgorithm,
    signature: bits.content.subarray(1),
  };
}

/** A CRL in DER, or in PEM (-----BEGIN X509 CRL-----); CrlError when it is neither. */
export function parseCrl(data: Buffer): Crl {
  const head = data.subarray(0, 64).toString('latin1');
  let der = data;
  if (head.includes('-----BEGIN')) {
    const pem = PEM.exec(data.toString('latin1'));
    if (pem === null) throw new CrlError('PEM without an X509 CRL block');
    der = Buffer.from((pem[1] ?? '').replace(/\s+/g, ''), 'base64');
  }
  try {
    return parseDer(der);
  } catch (e) {
    if (e instanceof CrlError) throw e;
    if (e instanceof DerError) throw new CrlError(`malformed CRL: ${e.message}`);
    throw new CrlError(`unreadable CRL: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Why `crl` is not the word of `issuer`, or null when it is: the same name, its signature, and
 * KeyUsage allowing cRLSign. Independent of time, so it can be decided once per CRL and issuer.
 */
export function crlIssuerProblem(crl: Crl, issuer: X509Certificate, issuerFields: CertificateFields): string | null {
  if (!crl.issuerName.equals(issuerFields.subjectName)) return 'the CRL was issued by another name than the certificate\'s issuer';
  const usage = keyUsageBits(issuerFields);
  if (usage !== null && !usage.has(KEY_USAGE.cRLSign)) return 'the issuer\'s KeyUsage does not allow signing CRLs';
  const digest = CRL_SIGNATURE_DIGESTS[crl.signatureAlgorithm];
  if (digest === undefined) return `the CRL's signature algorithm (${crl.signatureAlgorithm}) is not supported`;
  let valid = false;
  try {
    valid = verify(digest, crl.tbs, issuer.publicKey, crl.signature);
  } catch {
    valid = false;
  }
  return valid ? null : 'the CRL\'s signature does not verify with the issuer\'s key';
}

/** Why `crl` cannot tell at `now` the status of a certificate (a CA's when `forCa`), or null. */
export function crlCoverageProblem(crl: Crl, now: Date, forCa: boolean): string | null {
  if (crl.thisUpdate.getTime() > now.getTime() + CLOCK_SKEW_MS) return `the CRL is issued in the future (${crl.thisUpdate.toISOString()})`;
  if (crl.nextUpdate !== null && crl.nextUpdate <= now) return `the CRL is stale: its nextUpdate was ${crl.nextUpdate.toISOString()}`;
  if ((crl.scope === 'endEntity' && forCa) || (crl.scope === 'ca' && !forCa)) return 'the CRL does not cover this kind of certificate';
  return null;
}
