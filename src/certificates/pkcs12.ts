// PKCS#12 (RFC 7292) reader: PFX → MAC check → authenticated safe → bags → the signing key, its
// certificate and the rest of the chain. Only password integrity and password privacy modes exist
// in practice for signing credentials; the public-key modes are reported as unsupported.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { type BagCollection, type CertEntry, type KeyEntry, readSafeContents } from './bags.ts';
import {
  type DerNode, DerError, decodeDer, explicit, isContext, isOneSequence, octetsOf, readOctets, readOid, readUint, sequence,
} from '../crypto/der.ts';
import { Pkcs12Error, malformed } from './errors.ts';
import { verifyMac } from './mac.ts';
import { OID } from './oids.ts';
import { type PasswordForms, type PbeContext, decryptThen, unsupported } from './pbe.ts';
import { WorkBudget, bmpPassword, bytewiseBmpPassword } from './pkcs12-kdf.ts';

export { Pkcs12Error, PKCS12_ERRORS, type Pkcs12ErrorCode } from './errors.ts';
export { LEGACY_REEXPORT_STEPS } from './pbe.ts';

export interface Pkcs12Contents {
  privateKey: KeyObject;
  certificate: X509Certificate;
  /** The other certificates, issuers first in order of the chain, then any unrelated ones. */
  chain: X509Certificate[];
  /** The leaf's issuers in order, roots (self-issued) left out: what KeyInfo carries after the leaf. */
  intermediates: X509Certificate[];
}

// Signing credentials are a few kilobytes; anything far larger is not one.
export const MAX_PKCS12_BYTES = 1024 * 1024;

/** Every password form some real exporter has used, most likely first. */
function passwordForms(password: string): PasswordForms[] {
  const utf8 = Buffer.from(password, 'utf8');
  const bmps = [bmpPassword(password)];
  // An empty password is the BMPString 00 00 in RFC 7292 and OpenSSL 3, but some exporters use no
  // bytes at all (OpenSSL's own verifier tries both).
  if (password === '') bmps.push(Buffer.alloc(0));
  if (/[^\x00-\x7f]/.test(password)) bmps.push(bytewiseBmpPassword(password));
  return bmps.map((bmp) => ({ utf8, bmp }));
}

function safeContentsFrom(der: Buffer): DerNode {
  const node = decodeDer(der, 'SafeContents');
  sequence(node, 'SafeContents');
  return node;
}

type ContentHandler = (content: DerNode | undefined, ctx: PbeContext) => DerNode;

const CONTENT_HANDLERS: Readonly<Record<string, ContentHandler>> = {
  [OID.data]: (content) => safeContentsFrom(readOctets(explicit(content, 0, 'data'), 'data')),
  [OID.encryptedData]: (content, ctx) => {
    const encryptedData = sequence(explicit(content, 0, 'EncryptedData'), 'EncryptedData', 2);
    readUint(encryptedData[0], 'EncryptedData version', 2);
    const [, algorithm, encrypted] = sequence(encryptedData[1], 'EncryptedContentInfo', 3);
    if (!isContext(encrypted, 0)) throw malformed('EncryptedData has no content');
    return decryptThen(ctx, algorithm, octetsOf(encrypted, 'encrypted content'), safeContentsFrom);
  },
};

function readContentInfo(node: DerNode, ctx: PbeContext, out: BagCollection): void {
  const info = sequence(node, 'ContentInfo', 1);
  const type = readOid(info[0], 'content type');
  const handler = CONTENT_HANDLERS[type];
  if (handler === undefined) throw unsupported(type, 'content type');
  readSafeContents(handler(info[1], ctx), ctx, out);
}

function matchesKey(cert: X509Certificate, key: KeyObject): boolean {
  try {
    return cert.checkPrivateKey(key);
  } catch {
    return false;
  }
}

// The certificate whose public key matches decides; the bag attributes only break ties (and pick
// a certificate at all when none matches, so that the check can report the mismatch).
function pairScore(key: KeyEntry, cert: CertEntry): number {
  const sameId = key.localKeyId !== null && cert.localKeyId !== null && key.localKeyId.equals(cert.localKeyId);
  const sameName = key.friendlyName !== null && key.friendlyName === cert.friendlyName;
  return (matchesKey(cert.cert, key.key) ? 8 : 0) + (sameId ? 4 : 0) + (sameName ? 2 : 0) + (cert.cert.ca ? 0 : 1);
}

/** Issuers other than the XMLDSig verifier would read (xmldsig-profile's cap, the leaf included). */
export const MAX_INTERMEDIATES = 5;

/** The leading issuers of `chain` (orderChain's), up to the first self-issued one (a root: the verifier has it). */
function intermediatesOf(leaf: X509Certificate, chain: readonly X509Certificate[]): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (let current = leaf, i = 0; i < chain.length && out.length < MAX_INTERMEDIATES; i++) {
    const next = chain[i] as X509Certificate;
    if (!current.checkIssued(next) || next.checkIssued(next)) break;
    out.push(next);
    current = next;
  }
  return out;
}

function orderChain(leaf: X509Certificate, others: X509Certificate[]): X509Certificate[] {
  const pool = others.filter((c, i) => c.fingerprint256 !== leaf.fingerprint256 &&
    others.findIndex((o) => o.fingerprint256 === c.fingerprint256) === i);
  const chain: X509Certificate[] = [];
  for (let current = leaf; ; ) {
    const issuerIndex = pool.findIndex((c) => current.checkIssued(c));
    const issuer = pool[issuerIndex];
    if (issuer === undefined) break;
    chain.push(issuer);
    pool.splice(issuerIndex, 1);
    current = issuer;
  }
  return [...chain, ...pool];
}

function parse(file: Buffer, password: string): Pkcs12Contents {
  if (file.length > MAX_PKCS12_BYTES) throw malformed(`larger than ${MAX_PKCS12_BYTES} bytes`);
  const pfx = sequence(decodeDer(file, 'PFX'), 'PFX', 2);
  if (pfx.length > 3) throw malformed('PFX has extra fields');
  if (readUint(pfx[0], 'PFX version', 255) !== 3) throw malformed('PFX version is not 3');
  const authSafeInfo = sequence(pfx[1], 'authSafe', 1);
  const authSafeType = readOid(authSafeInfo[0], 'authSafe content type');
  if (authSafeType !== OID.data) throw unsupported(authSafeType, 'integrity mode');
  const authSafe = readOctets(explicit(authSafeInfo[1], 0, 'authSafe content'), 'authSafe content');

  const budget = new WorkBudget();
  const forms = passwordForms(password);
  const ctx: PbeContext =
    pfx[2] === undefined
      ? { passwords: forms, macVerified: false, budget }
      : { passwords: [verifyMac(pfx[2], authSafe, forms, budget)], macVerified: true, budget };

  const out: BagCollection = { keys: [], certs: [] };
  for (const info of sequence(decodeDer(authSafe, 'AuthenticatedSafe'), 'AuthenticatedSafe')) {
    readContentInfo(info, ctx, out);
  }
  if (out.keys.length === 0) throw new Pkcs12Error('NO_PRIVATE_KEY');
  if (out.certs.length === 0) throw new Pkcs12Error('NO_CERTIFICATE');

  let best: { key: KeyEntry; cert: CertEntry; score: number } | undefined;
  for (const key of out.keys) {
    for (const cert of out.certs) {
      const score = pairScore(key, cert);
      if (best === undefined || score > best.score) best = { key, cert, score };
    }
  }
  if (best === undefined) throw new Pkcs12Error('NO_CERTIFICATE');
  const others = out.certs.filter((c) => c !== best.cert).map((c) => c.cert);
  const chain = orderChain(best.cert.cert, others);
  return { privateKey: best.key.key, certificate: best.cert.cert, chain, intermediates: intermediatesOf(best.cert.cert, chain) };
}

/**
 * The reason a file cannot be PKCS#12 when that shows without parsing it (empty, too large, not
 * one DER SEQUENCE spanning the file), else undefined. parsePkcs12 refuses the same files.
 */
export function quickReject(file: Buffer): Pkcs12Error | undefined {
  if (file.length === 0) return malformed('empty file');
  if (file.length > MAX_PKCS12_BYTES) return malformed(`larger than ${MAX_PKCS12_BYTES} bytes`);
  if (!isOneSequence(file)) return malformed('not one DER SEQUENCE spanning the file');
  return undefined;
}

/**
 * Reads a PKCS#12 file protected by `password`. Every failure is a Pkcs12Error; hostile input
 * cannot produce another error type, deep recursion or unbounded work.
 */
export function parsePkcs12(file: Buffer, password: string): Pkcs12Contents {
  try {
    return parse(file, password);
  } catch (e) {
    if (e instanceof Pkcs12Error) throw e;
    // The DER reader is shared with X.509 and CRL parsing, so it has its own error type.
    if (e instanceof DerError) throw malformed(e.message);
    throw new Pkcs12Error('MALFORMED', undefined, e);
  }
}
