// The one foreign document the tenant's key signs: an authentication seed, from DGII or from
// another taxpayer's receiver. Whoever answers the seed request controls what comes back, so
// signing "whatever came back" would sign an e-CF, ACECF or ANECF a hostile receiver composed
// (a signing oracle). A seed is signed only when it is exactly DGII's seed document:
//   <SemillaModel [xmlns:…]><valor>…</valor><fecha>…</fecha></SemillaModel>
// in no namespace, small, each child once, text only, no other element, attribute, comment or PI.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { errorMessage } from '../../errors.ts';
import { parseXml, signXml, type XmlElement } from '../../xml/index.ts';

/** A seed is a few hundred bytes; anything larger is not one. */
export const SEED_MAX_BYTES = 4096;
const VALOR_MAX_CHARS = 1024;
const FECHA_MAX_CHARS = 64;
const CHILDREN = { valor: VALOR_MAX_CHARS, fecha: FECHA_MAX_CHARS } as const;
type ChildName = keyof typeof CHILDREN;

/** Thrown instead of signing a document that is not exactly a seed. */
export class NotASeedError extends Error {
  override name = 'NotASeedError';
}

function isChildName(name: string): name is ChildName {
  return Object.hasOwn(CHILDREN, name);
}

function leafProblem(e: XmlElement, max: number): string | null {
  if (e.prefix !== '' || e.namespaceURI !== '') return `<${e.name}> is in a namespace`;
  if (e.attributes.length > 0 || e.namespaceDeclarations.length > 0) return `<${e.localName}> carries attributes`;
  let text = '';
  for (const c of e.children) {
    if (c.kind !== 'text') return `<${e.localName}> holds ${c.kind === 'element' ? `an element <${c.name}>` : `a ${c.kind}`}`;
    text += c.value;
  }
  const value = text.trim();
  if (value === '') return `<${e.localName}> is empty`;
  if (value.length > max) return `<${e.localName}> is longer than ${max} characters`;
  if (/[\u0000-\u001f\u007f]/.test(value)) return `<${e.localName}> holds control characters`;
  return null;
}

/** Why `xml` is not exactly DGII's seed document, or null when it is. */
export function seedProblem(xml: string): string | null {
  const bytes = Buffer.byteLength(xml, 'utf8');
  if (bytes > SEED_MAX_BYTES) return `${bytes} bytes, more than a seed's ${SEED_MAX_BYTES}`;
  let root: XmlElement;
  try {
    const doc = parseXml(xml, { maxBytes: SEED_MAX_BYTES, maxDepth: 4, maxNodes: 64 });
    if (doc.prolog.length > 0 || doc.epilog.length > 0) return 'comments or processing instructions around the root';
    root = doc.root;
  } catch (err) {
    return `not well-formed XML (${errorMessage(err)})`;
  }
  if (root.localName !== 'SemillaModel' || root.prefix !== '' || root.namespaceURI !== '') {
    return `the root is <${root.name}>${root.namespaceURI === '' ? '' : ` in ${root.namespaceURI}`}, not <SemillaModel>`;
  }
  // Namespace declarations (DGII's xmlns:xsd, xmlns:xsi) are allowed; a default namespace is not (checked above).
  if (root.attributes.length > 0) return `<SemillaModel> carries the attribute ${root.attributes[0]?.name ?? ''}`;
  const seen = new Set<ChildName>();
  for (const c of root.children) {
    if (c.kind === 'text') {
      if (c.value.trim() !== '') return '<SemillaModel> holds text outside valor and fecha';
      continue;
    }
    if (c.kind !== 'element') return `<SemillaModel> holds a ${c.kind}`;
    if (!isChildName(c.localName) || c.name !== c.localName) return `<SemillaModel> holds <${c.name}>; a seed has only <valor> and <fecha>`;
    if (seen.has(c.localName)) return `<${c.localName}> appears more than once`;
    seen.add(c.localName);
    const problem = leafProblem(c, CHILDREN[c.localName]);
    if (problem !== null) return problem;
  }
  for (const name of Object.keys(CHILDREN) as ChildName[]) if (!seen.has(name)) return `<${name}> is missing`;
  return null;
}

/**
 * Signs `xml` with the tenant's key only when it is exactly a seed; otherwise throws
 * NotASeedError and nothing is signed. Signing errors (key, parse) propagate as signXml's.
 */
export function signSeedXml(xml: string, key: KeyObject, certificate: X509Certificate, chain: readonly X509Certificate[] = []): string {
  const problem = seedProblem(xml);
  if (problem !== null) throw new NotASeedError(`not DGII's seed document (SemillaModel with valor and fecha only): ${problem}; nothing was signed`);
  return signXml(xml, key, certificate, chain);
}
