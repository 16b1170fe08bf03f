/**
 * The one XMLDSig shape DGII uses ("Firmado de e-CF"): an enveloped signature, last child of the root, over the
 * whole document with inclusive C14N 1.0, RSA-SHA256 and SHA-256, carrying the signer's X.509 certificate.
 * This module builds that shape and checks a received Signature against it, element by element.
 */
import { el, serializeXml } from './build.ts';
import type { XmlDocument, XmlElement, XmlNode } from './types.ts';

export const XMLDSIG = {
  namespace: 'http://www.w3.org/2000/09/xmldsig#',
  canonicalization: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  signatureMethod: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  envelopedSignatureTransform: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
  digestMethod: 'http://www.w3.org/2001/04/xmlenc#sha256',
} as const;

/** Smallest RSA modulus accepted for signing or verifying. */
export const MIN_RSA_BITS = 2048;

export function signatureFragment(digestValue: string, signatureValue: string, certificateBase64: string, chainBase64: readonly string[] = []): string {
  const signature = el(
    'Signature',
    { xmlns: XMLDSIG.namespace },
    el(
      'SignedInfo',
      el('CanonicalizationMethod', { Algorithm: XMLDSIG.canonicalization }),
      el('SignatureMethod', { Algorithm: XMLDSIG.signatureMethod }),
      el(
        'Reference',
        { URI: '' },
        el('Transforms', el('Transform', { Algorithm: XMLDSIG.envelopedSignatureTransform })),
        el('DigestMethod', { Algorithm: XMLDSIG.digestMethod }),
        el('DigestValue', digestValue),
      ),
    ),
    el('SignatureValue', signatureValue),
    // The signer's certificate first, then its intermediates (readSignature reads them so).
    el('KeyInfo', el('X509Data', el('X509Certificate', certificateBase64), ...chainBase64.map((c) => el('X509Certificate', c)))),
  );
  return serializeXml(signature, { declaration: false });
}

/** A Signature that does not match the profile; the message becomes verifyXml's reason. */
export class SignatureProfileError extends Error {
  override readonly name = 'SignatureProfileError';
}

interface ElementRule {
  /** Attributes allowed besides Algorithm (which is required exactly when `algorithm` is set). */
  readonly attributes: readonly string[];
  readonly algorithm?: string;
  /** Exact sequence of dsig child elements; 'text' for a leaf holding base64 text. */
  readonly content: readonly string[] | 'text';
}

const RULES: Readonly<Record<string, ElementRule>> = {
  Signature: { attributes: ['Id'], content: ['SignedInfo', 'SignatureValue', 'KeyInfo'] },
  SignedInfo: { attributes: ['Id'], content: ['CanonicalizationMethod', 'SignatureMethod', 'Reference'] },
  CanonicalizationMethod: { attributes: [], algorithm: XMLDSIG.canonicalization, content: [] },
  SignatureMethod: { attributes: [], algorithm: XMLDSIG.signatureMethod, content: [] },
  Reference: { attributes: ['Id', 'URI'], content: ['Transforms', 'DigestMethod', 'DigestValue'] },
  Transforms: { attributes: [], content: ['Transform'] },
  Transform: { attributes: [], algorithm: XMLDSIG.envelopedSignatureTransform, content: [] },
  DigestMethod: { attributes: [], algorithm: XMLDSIG.digestMethod, content: [] },
  DigestValue: { attributes: [], content: 'text' },
  SignatureValue: { attributes: ['Id'], content: 'text' },
  X509Certificate: { attributes: [], content: 'text' },
};

/** KeyInfo may carry descriptive extras from other signers' tools; only the certificates are used. */
const KEY_INFO_EXTRAS = ['KeyName', 'KeyValue'] as const;
const X509_DATA_EXTRAS = ['X509IssuerSerial', 'X509SubjectName', 'X509SKI'] as const;

export interface SignatureParts {
  readonly signature: XmlElement;
  readonly signedInfo: XmlElement;
  readonly digestValue: Buffer;
  readonly signatureValue: Buffer;
  /** SignatureValue as base64 without whitespace (DGII derives the security code from it). */
  readonly signatureValueBase64: string;
  /** The signer's certificate: the first X509Certificate. */
  readonly certificate: Buffer;
  /** The other X509Certificate elements, in document order: the signer's issuers, for path building. */
  readonly chain: readonly Buffer[];
}

/** The signer's certificate and a few issuers; more is not a chain but work for the verifier. */
export const MAX_KEYINFO_CERTIFICATES = 6;

function fail(message: string): never {
  throw new SignatureProfileError(message);
}

function isBlank(node: XmlNode): boolean {
  return node.kind === 'text' && /^[ \t\n\r]*$/.test(node.value);
}

/** Element children of a dsig element, refusing text, comments and PIs between them. */
function dsigChildren(element: XmlElement): XmlElement[] {
  const children: XmlElement[] = [];
  for (const child of element.children) {
    if (child.kind === 'element') {
      if (child.namespaceURI !== XMLDSIG.namespace) fail(`unexpected element ${child.name} in ${element.localName}`);
      children.push(child);
    } else if (!isBlank(child)) {
      fail(`unexpected ${child.kind} content in ${element.localName}`);
    }
  }
  return children;
}

function checkAttributes(element: XmlElement, allowed: readonly string[], algorithm: string | undefined): void {
  for (const attribute of element.attributes) {
    const known = attribute.namespaceURI === '' && (allowed.includes(attribute.localName) || (algorithm !== undefined && attribute.localName === 'Algorithm'));
    if (!known) fail(`unexpected attribute ${attribute.name} on ${element.localName}`);
  }
  if (algorithm !== undefined) {
    const value = element.attributes.find((a) => a.localName === 'Algorithm')?.value;
    if (value !== algorithm) fail(`${element.localName} Algorithm must be ${algorithm}, found ${value ?? 'none'}`);
  }
}

/** Checks one element against its rule; returns its children (elements, or the leaf's base64 text). */
function checkElement(element: XmlElement, localName: string): XmlElement[] {
  const rule = RULES[localName];
  if (rule === undefined || element.localName !== localName || element.namespaceURI !== XMLDSIG.namespace) {
    fail(`expected ${localName} in the XMLDSig namespace, found ${element.name}`);
  }
  checkAttributes(element, rule.attributes, rule.algorithm);
  if (rule.content === 'text') {
    if (element.children.some((child) => child.kind !== 'text')) fail(`${localName} must contain only text`);
    return [];
  }
  const children = dsigChildren(element);
  const names = children.map((child) => child.localName);
  if (names.length !== rule.content.length || names.some((name, i) => name !== rule.content[i])) {
    fail(`${localName} must contain exactly ${rule.content.join(', ') || 'nothing'}; found ${names.join(', ') || 'nothing'}`);
  }
  return children;
}

function base64Content(element: XmlElement): Buffer {
  const text = element.children.map((child) => (child.kind === 'text' ? child.value : '')).join('').replace(/[ \t\n\r]/g, '');
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) {
    fail(`${element.localName} is not valid base64`);
  }
  return Buffer.from(text, 'base64');
}

function onlyOne(elements: readonly XmlElement[], what: string): XmlElement {
  const [first] = elements;
  if (first === undefined || elements.length !== 1) fail(`expected exactly one ${what}, found ${elements.length}`);
  return first;
}

function readCertificates(keyInfo: XmlElement): Buffer[] {
  checkAttributes(keyInfo, ['Id'], undefined);
  const keyInfoChildren = dsigChildren(keyInfo);
  const x509Data = onlyOne(keyInfoChildren.filter((c) => c.localName === 'X509Data'), 'X509Data in KeyInfo');
  const strayKeyInfo = keyInfoChildren.find((c) => c.localName !== 'X509Data' && !(KEY_INFO_EXTRAS as readonly string[]).includes(c.localName));
  if (strayKeyInfo !== undefined) fail(`unexpected ${strayKeyInfo.localName} in KeyInfo`);
  checkAttributes(x509Data, [], undefined);
  const dataChildren = dsigChildren(x509Data);
  const elements = dataChildren.filter((c) => c.localName === 'X509Certificate');
  if (elements.length === 0) fail('expected an X509Certificate in X509Data, found none');
  if (elements.length > MAX_KEYINFO_CERTIFICATES) fail(`X509Data holds ${elements.length} certificates; at most ${MAX_KEYINFO_CERTIFICATES} are accepted`);
  const strayData = dataChildren.find((c) => c.localName !== 'X509Certificate' && !(X509_DATA_EXTRAS as readonly string[]).includes(c.localName));
  if (strayData !== undefined) fail(`unexpected ${strayData.localName} in X509Data`);
  const certificates = elements.map((element) => {
    checkElement(element, 'X509Certificate');
    return base64Content(element);
  });
  if (new Set(certificates.map((c) => c.toString('base64'))).size !== certificates.length) fail('X509Data holds the same certificate twice');
  return certificates;
}

/** XMLDSig Signature elements anywhere in the document. */
export function countSignatures(doc: XmlDocument): number {
  let count = 0;
  const pending: XmlElement[] = [doc.root];
  for (let element = pending.pop(); element !== undefined; element = pending.pop()) {
    if (element.localName === 'Signature' && element.namespaceURI === XMLDSIG.namespace) count++;
    for (const child of element.children) if (child.kind === 'element') pending.push(child);
  }
  return count;
}

/** The enveloped Signature: the root's last child element, nothing but whitespace after it, and the only one in the document. */
function locateSignature(doc: XmlDocument): XmlElement {
  const { children } = doc.root;
  let last = children.length - 1;
  while (last >= 0 && isBlank(children[last] as XmlNode)) last--;
  const candidate = children[last];
  if (candidate?.kind !== 'element' || candidate.localName !== 'Signature' || candidate.namespaceURI !== XMLDSIG.namespace) {
    fail('the document has no Signature as the last child of its root element');
  }
  const count = countSignatures(doc);
  if (count !== 1) fail(`the document holds ${count} Signature elements; exactly one is accepted`);
  return candidate;
}

export function readSignature(doc: XmlDocument): SignatureParts {
  const signature = locateSignature(doc);
  const [signedInfo, signatureValue, keyInfo] = checkElement(signature, 'Signature') as [XmlElement, XmlElement, XmlElement];
  const [c14nMethod, signatureMethod, reference] = checkElement(signedInfo, 'SignedInfo') as [XmlElement, XmlElement, XmlElement];
  checkElement(c14nMethod, 'CanonicalizationMethod');
  checkElement(signatureMethod, 'SignatureMethod');
  const [transforms, digestMethod, digestValue] = checkElement(reference, 'Reference') as [XmlElement, XmlElement, XmlElement];
  const uri = reference.attributes.find((a) => a.localName === 'URI')?.value;
  if (uri !== '') fail(`Reference URI must be "" (the whole document), found ${uri === undefined ? 'none' : `"${uri}"`}`);
  const [transform] = checkElement(transforms, 'Transforms') as [XmlElement];
  checkElement(transform, 'Transform');
  checkElement(digestMethod, 'DigestMethod');
  checkElement(digestValue, 'DigestValue');
  checkElement(signatureValue, 'SignatureValue');
  const signatureBytes = base64Content(signatureValue);
  const certificates = readCertificates(keyInfo);
  return {
    signature,
    signedInfo,
    digestValue: base64Content(digestValue),
    signatureValue: signatureBytes,
    signatureValueBase64: signatureBytes.toString('base64'),
    certificate: certificates[0] as Buffer,
    chain: certificates.slice(1),
  };
}
