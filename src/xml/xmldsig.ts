/** Enveloped XMLDSig signing and verification in the DGII profile (see xmldsig-profile.ts). */
import { createHash, sign, timingSafeEqual, verify, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { serializeXml, XML_DECLARATION, type XmlBuildElement } from './build.ts';
import { canonicalizeDocument, canonicalizeElement } from './c14n.ts';
import { XML_ERROR, XmlError } from './errors.ts';
import { parseXml } from './parse.ts';
import { childElement, elementChildren } from './tree.ts';
import type { XmlDocument, XmlLimits } from './types.ts';
import { DEFAULT_XML_LIMITS } from './types.ts';
import { countSignatures, MAX_KEYINFO_CERTIFICATES, MIN_RSA_BITS, readSignature, SignatureProfileError, signatureFragment, XMLDSIG } from './xmldsig-profile.ts';
import { errorMessage } from '../errors.ts';

export { XMLDSIG, MIN_RSA_BITS } from './xmldsig-profile.ts';

export type VerifyResult =
  | {
      readonly valid: true;
      readonly certificate: X509Certificate;
      /** The other certificates of KeyInfo (the signer's issuers, as the signer offers them); not verified. */
      readonly chain: readonly X509Certificate[];
      /** Base64 without whitespace; DGII's security code is its first six characters. */
      readonly signatureValue: string;
      /** The tree that was verified: read the document's data from it, not from a second parse. */
      readonly document: XmlDocument;
    }
  | { readonly valid: false; readonly reason: string };

function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

function rsaBits(key: KeyObject): number {
  return key.asymmetricKeyType === 'rsa' ? (key.asymmetricKeyDetails?.modulusLength ?? 0) : 0;
}

/** Text of the document with `fragment` as the root's last child; everything else stays as the author wrote it. */
function appendToRoot(doc: XmlDocument, fragment: string): string {
  const { text, bodyStart, rootClose, rootSelfClosing } = doc.source;
  const head = text.slice(bodyStart, rootClose);
  if (rootSelfClosing) return `${XML_DECLARATION}${head}>${fragment}</${doc.root.name}>${text.slice(rootClose + 2)}`;
  return `${XML_DECLARATION}${head}${fragment}${text.slice(rootClose)}`;
}

/**
 * SignedInfo canonicalised where it is placed, when the root leaves nothing to inherit: no
 * namespace declarations and no xml:* attributes, so Signature's default namespace is all that
 * is in scope (C14N 1.0 renders it on the apex), and the fragment's own text, written by our
 * serializer, is already canonical (attributes in order, empty elements as pairs, no
 * whitespace). Null otherwise: the caller reads the placed Signature back. What the fast path
 * answers equals what the read-back gives (test/xmldsig.test.ts).
 */
export function signedInfoInPlace(doc: XmlDocument, unsignedFragment: string): string | null {
  const root = doc.root;
  if (root.namespaceDeclarations.length > 0 || root.prefix !== '' || root.attributes.some((a) => a.prefix === 'xml')) return null;
  return signedInfoUnderPlainRoot(unsignedFragment);
}

/** signedInfoInPlace under a root that leaves nothing to inherit. */
function signedInfoUnderPlainRoot(unsignedFragment: string): string | null {
  const open = unsignedFragment.indexOf('<SignedInfo>');
  const close = unsignedFragment.indexOf('</SignedInfo>');
  if (open < 0 || close < open) return null;
  return `<SignedInfo xmlns="${XMLDSIG.namespace}">${unsignedFragment.slice(open + '<SignedInfo>'.length, close)}</SignedInfo>`;
}

/** SignedInfo canonicalised in its final context, read back from the placed Signature. */
export function signedInfoReadBack(doc: XmlDocument, unsignedFragment: string): string {
  const unsigned = appendToRoot(doc, unsignedFragment);
  const placed = parseXml(unsigned, {
    maxBytes: Buffer.byteLength(unsigned, 'utf8'),
    maxNodes: DEFAULT_XML_LIMITS.maxNodes + 64,
  });
  const signedInfo = childElement(elementChildren(placed.root).at(-1) ?? placed.root, 'SignedInfo', XMLDSIG.namespace);
  if (signedInfo === undefined) throw new XmlError(XML_ERROR.MALFORMED, 'internal: the appended Signature was not found');
  return canonicalizeElement(signedInfo);
}

/** A signed document and its SignatureValue (Base64), which the security code is read from. */
export interface SignedXml {
  readonly xml: string;
  readonly signatureValue: string;
}

/**
 * Signs a document: the Signature is appended as the root's last child and the result starts with a UTF-8
 * XML declaration. KeyInfo carries `certificate`, then `chain` (its intermediates, issuers in order),
 * so a verifier that trusts only the root can build the path. Throws XmlError for unparseable
 * input, an existing Signature, an unsuitable key, or a chain longer than a verifier reads.
 * Answers the SignatureValue too, so a caller need not parse what was just signed to read it.
 */
export function signXmlWithValue(xml: string, key: KeyObject, certificate: X509Certificate, chain: readonly X509Certificate[] = []): SignedXml {
  checkSigner(key, certificate, chain);
  const doc = parseXml(xml);
  if (childElement(doc.root, 'Signature') !== undefined || countSignatures(doc) > 0) {
    throw new XmlError(XML_ERROR.ALREADY_SIGNED, 'the document already has a Signature');
  }

  // Nothing is removed by the enveloped transform yet, so the document as it stands is what the Reference covers.
  const { fragment, signatureValue } = signatureOver(sha256Base64(canonicalizeDocument(doc)), key, certificate, chain, (unsigned) => signedInfoInPlace(doc, unsigned) ?? signedInfoReadBack(doc, unsigned));
  return { xml: appendToRoot(doc, fragment), signatureValue };
}

/** SignedInfo ready to sign, and the Signature element to place once its value is known. */
interface UnsignedSignature {
  readonly signedInfo: Buffer;
  fragment(signatureValue: string): string;
}

/**
 * The Signature element for a document whose canonical form digests to `digest`: SignedInfo, as
 * `canonicalSignedInfo` canonicalises it where it is placed, to be signed by the caller with
 * the key. signatureOver and signBuiltWithValue are the two places the key signs (the signing
 * audit, docs/architecture.md).
 */
function unsignedSignature(
  digest: string, certificate: X509Certificate, chain: readonly X509Certificate[], canonicalSignedInfo: (unsignedFragment: string) => string,
): UnsignedSignature {
  const certificateBase64 = certificate.raw.toString('base64');
  const chainBase64 = chain.map((c) => c.raw.toString('base64'));
  const signedInfo = canonicalSignedInfo(signatureFragment(digest, '', certificateBase64, chainBase64));
  return {
    signedInfo: Buffer.from(signedInfo, 'utf8'),
    fragment: (signatureValue) => signatureFragment(digest, signatureValue, certificateBase64, chainBase64),
  };
}

// RSASSA-PKCS1-v1_5 (rsa-sha256) is Node's padding for an 'rsa' key, the only type checkSigner
// admits. The KeyObject is passed alone: wrapped with its padding in an options object, Node
// probes the object for key types first, 15–20 µs a call (test/xmldsig.test.ts checks the
// padding against xmlsec1).

/** The Signature element of unsignedSignature, signed on the event loop. */
function signatureOver(
  digest: string, key: KeyObject, certificate: X509Certificate, chain: readonly X509Certificate[], canonicalSignedInfo: (unsignedFragment: string) => string,
): { fragment: string; signatureValue: string } {
  const unsigned = unsignedSignature(digest, certificate, chain, canonicalSignedInfo);
  const signatureValue = sign('sha256', unsigned.signedInfo, key).toString('base64');
  return { fragment: unsigned.fragment(signatureValue), signatureValue };
}

/** crypto.sign with a callback: the RSA operation runs on libuv's pool (docs/architecture.md, "Work off the event loop"). */
const signOnPool = promisify(sign);

/** Keys already found to belong to a certificate: the check costs as much as hashing the document. */
const matched = new WeakMap<KeyObject, WeakSet<X509Certificate>>();

function checkSigner(key: KeyObject, certificate: X509Certificate, chain: readonly X509Certificate[]): void {
  if (key.type !== 'private' || rsaBits(key) < MIN_RSA_BITS) {
    throw new XmlError(XML_ERROR.SIGNING_KEY, `the signing key must be an RSA private key of at least ${MIN_RSA_BITS} bits`);
  }
  if (matched.get(key)?.has(certificate) !== true) {
    if (!certificate.checkPrivateKey(key)) throw new XmlError(XML_ERROR.SIGNING_KEY, 'the certificate does not belong to the signing key');
    const certificates = matched.get(key) ?? new WeakSet<X509Certificate>();
    certificates.add(certificate);
    matched.set(key, certificates);
  }
  if (chain.length + 1 > MAX_KEYINFO_CERTIFICATES) throw new XmlError(XML_ERROR.SIGNING_KEY, `KeyInfo may carry at most ${MAX_KEYINFO_CERTIFICATES} certificates`);
}

/** True when no element of the tree has an attribute (or a namespace declaration), a prefix, or is a Signature. */
function plainTree(root: XmlBuildElement): boolean {
  const work: XmlBuildElement[] = [root];
  for (let e = work.pop(); e !== undefined; e = work.pop()) {
    if (e.attributes.length > 0 || e.name.includes(':') || e.name === 'Signature') return false;
    for (const child of e.children) if (typeof child !== 'string') work.push(child);
  }
  return true;
}

/**
 * signXmlWithValue for a document this service built (xml/build.ts), without writing it out and
 * parsing it back. A tree with no attributes, namespaces or prefixes (DGII's e-CF and RFCE carry
 * none) serialises to its own canonical form: C14N 1.0 writes such elements as start and end tag
 * pairs with text escaped as serializeXml escapes it, which is what serializeXml writes. So the
 * serialisation is what the Reference digests, and SignedInfo is canonical where it is placed
 * (signedInfoInPlace). Any other tree is written out and signed by signXmlWithValue. The two give
 * the same bytes (test/xmldsig.test.ts, and xmlsec1 verifies them). The RSA operation runs on
 * libuv's pool, so the answer is a promise.
 */
export async function signBuiltWithValue(root: XmlBuildElement, key: KeyObject, certificate: X509Certificate, chain: readonly X509Certificate[] = []): Promise<SignedXml> {
  if (!plainTree(root)) return signXmlWithValue(serializeXml(root, { declaration: true }), key, certificate, chain);
  checkSigner(key, certificate, chain);
  const canonical = serializeXml(root, { declaration: false });
  const unsigned = unsignedSignature(sha256Base64(canonical), certificate, chain, (fragment) => {
    const signedInfo = signedInfoUnderPlainRoot(fragment);
    if (signedInfo === null) throw new XmlError(XML_ERROR.MALFORMED, 'internal: the Signature fragment has no SignedInfo');
    return signedInfo;
  });
  // The pipeline's signature, one per document: 0.4–0.6 ms of RSA that would otherwise hold the
  // event loop every tenant's requests share.
  const signatureValue = (await signOnPool('sha256', unsigned.signedInfo, key)).toString('base64');
  const close = `</${root.name}>`;
  return { xml: `${XML_DECLARATION}${canonical.slice(0, -close.length)}${unsigned.fragment(signatureValue)}${close}`, signatureValue };
}

/** signXmlWithValue's document alone. */
export function signXml(xml: string, key: KeyObject, certificate: X509Certificate, chain: readonly X509Certificate[] = []): string {
  return signXmlWithValue(xml, key, certificate, chain).xml;
}

interface ReadCertificate {
  readonly certificate: X509Certificate;
  /** Null when Node cannot read the key (an issuer's may be of any algorithm; a signer's is refused). */
  readonly publicKey: KeyObject | null;
  /** The RSA modulus's bits; 0 for any other key. */
  readonly bits: number;
}

function publicKeyOf(certificate: X509Certificate): KeyObject | null {
  try {
    return certificate.publicKey;
  } catch {
    return null;
  }
}

// Documents from one signer carry the same certificate, and reading it (the X509Certificate, its
// public key and the key's size) cost about 0.25 ms per verification in the DGII simulator's
// profile, more than the RSA verification. The same bytes always read the same, so a read is
// kept by its DER, the oldest dropped beyond 256; whether the certificate is trusted is still
// decided by each caller. Only certificates of up to 8 KiB are kept (DGII's are about 2 KiB): a
// sender's certificates can be as large as the document allows, and 256 of those must not stay
// in memory.
const READ_CERTIFICATES_MAX = 256;
const READ_CERTIFICATE_MAX_BYTES = 8192;
const readCertificates = new Map<string, ReadCertificate>();

/** The certificate of these DER bytes, with its public key; throws when they are not one. */
function readCertificate(der: Buffer): ReadCertificate {
  const kept = der.length <= READ_CERTIFICATE_MAX_BYTES;
  const key = kept ? der.toString('latin1') : '';
  const known = kept ? readCertificates.get(key) : undefined;
  if (known !== undefined) return known;
  const certificate = new X509Certificate(der);
  const publicKey = publicKeyOf(certificate);
  const read = { certificate, publicKey, bits: publicKey === null ? 0 : rsaBits(publicKey) };
  if (!kept) return read;
  if (readCertificates.size >= READ_CERTIFICATES_MAX) readCertificates.delete(readCertificates.keys().next().value ?? '');
  readCertificates.set(key, read);
  return read;
}

/**
 * Verifies an enveloped signature of exactly the DGII profile with the certificate it carries
 * (the first of X509Data; any others are offered as its issuers). Whether that certificate is
 * trusted is the caller's decision. Never throws.
 */
export function verifyXml(xml: string | Uint8Array, limits: Partial<XmlLimits> = {}): VerifyResult {
  let doc: XmlDocument;
  try {
    doc = parseXml(xml, limits);
  } catch (error) {
    return refused(error);
  }
  return verifyParsed(doc);
}

/** verifyXml of a document the caller already parsed (with the limits it chose), without a second parse. */
export function verifyParsed(doc: XmlDocument): VerifyResult {
  try {
    const parts = readSignature(doc);

    const digest = createHash('sha256').update(canonicalizeDocument(doc, { exclude: parts.signature }), 'utf8').digest();
    if (parts.digestValue.length !== digest.length || !timingSafeEqual(parts.digestValue, digest)) {
      return { valid: false, reason: 'digest mismatch: the document was changed after signing' };
    }

    let signer: ReadCertificate;
    let chain: X509Certificate[];
    try {
      signer = readCertificate(parts.certificate);
      chain = parts.chain.map((der) => readCertificate(der).certificate);
    } catch {
      return { valid: false, reason: 'X509Certificate is not a readable certificate' };
    }
    const { certificate, publicKey, bits } = signer;
    if (publicKey === null || bits < MIN_RSA_BITS) return { valid: false, reason: `the certificate key must be RSA of at least ${MIN_RSA_BITS} bits` };
    if (parts.signatureValue.length !== Math.ceil(bits / 8)) return { valid: false, reason: 'SignatureValue has the wrong length for the key' };

    const signedInfo = Buffer.from(canonicalizeElement(parts.signedInfo), 'utf8');
    // PKCS1-v1_5 for an 'rsa' key, the only type rsaBits admits; the key alone, as in signatureOver.
    const ok = verify('sha256', signedInfo, publicKey, parts.signatureValue);
    if (!ok) return { valid: false, reason: 'signature value does not match SignedInfo for the certificate key' };
    return { valid: true, certificate, chain, signatureValue: parts.signatureValueBase64, document: doc };
  } catch (error) {
    return refused(error);
  }
}

function refused(error: unknown): VerifyResult {
  if (error instanceof XmlError) return { valid: false, reason: `XML rejected (${error.code}): ${error.message}` };
  if (error instanceof SignatureProfileError) return { valid: false, reason: `signature profile: ${error.message}` };
  return { valid: false, reason: `verification failed: ${errorMessage(error)}` };
}
