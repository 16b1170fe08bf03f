// Reads the small subset of XML Schema that DGII's XSDs use (nested xs:sequence of
// xs:element, named xs:simpleType restrictions) into the schema table's shapes. It is a
// build-time tool for the generator and its consistency test, not used when validating.
import type { GroupElement, SchemaElement, SignatureSlot, SimpleTypeDef, XsdBase, XsdDocument, XsdSchema } from './schema-types.ts';

interface XmlNode {
  readonly tag: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlNode[];
}

const TAG = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
const ATTR = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function parseXml(text: string): XmlNode {
  const body = text
    .replace(/^\uFEFF/, '')
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<!--[\s\S]*?-->/g, '');
  const root: XmlNode = { tag: '#document', attrs: {}, children: [] };
  const stack: XmlNode[] = [root];
  for (const match of body.matchAll(TAG)) {
    const [, closing, tag = '', attrText = '', selfClosing] = match;
    const parent = stack[stack.length - 1];
    if (parent === undefined) throw new Error('unbalanced XML');
    if (closing) {
      if (parent.tag !== tag) throw new Error(`unexpected </${tag}> inside <${parent.tag}>`);
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const [, name = '', dq, sq] of attrText.matchAll(ATTR)) attrs[name] = dq ?? sq ?? '';
    const node: XmlNode = { tag, attrs, children: [] };
    parent.children.push(node);
    if (!selfClosing) stack.push(node);
  }
  if (stack.length !== 1) throw new Error('unclosed XML elements');
  return root;
}

function child(node: XmlNode, tag: string): XmlNode {
  const found = node.children.find((c) => c.tag === tag);
  if (found === undefined) throw new Error(`<${node.tag} ${node.attrs.name ?? ''}> has no <${tag}>`);
  return found;
}

function occurs(value: string | undefined): number {
  if (value === undefined) return 1;
  if (!/^\d+$/.test(value)) throw new Error(`unsupported occurrence "${value}"`);
  return Number(value);
}

function readElement(node: XmlNode): SchemaElement {
  const name = node.attrs.name;
  if (name === undefined) throw new Error('xs:element without a name');
  const min = occurs(node.attrs.minOccurs);
  const max = occurs(node.attrs.maxOccurs);
  const type = node.attrs.type?.trim();
  if (type !== undefined) return { name, min, max, type };
  return { name, min, max, children: readSequence(child(child(node, 'xs:complexType'), 'xs:sequence')) };
}

function readSequence(sequence: XmlNode): SchemaElement[] {
  // The trailing xs:any is the XML-DSig Signature, which this table leaves to the signer.
  return sequence.children.filter((c) => c.tag === 'xs:element').map(readElement);
}

const BASES: Readonly<Record<string, XsdBase>> = {
  'xs:string': 'string',
  'xs:integer': 'integer',
  'xs:decimal': 'decimal',
};

const NUMERIC_FACETS = ['minLength', 'maxLength', 'totalDigits', 'fractionDigits'] as const;
const BOUND_FACETS = ['minInclusive', 'maxInclusive', 'minExclusive', 'maxExclusive'] as const;

function readSimpleType(node: XmlNode): SimpleTypeDef {
  const restriction = child(node, 'xs:restriction');
  const base = BASES[restriction.attrs.base ?? ''];
  if (base === undefined) throw new Error(`unsupported base ${restriction.attrs.base ?? '?'}`);
  const def: Record<string, unknown> = { base };
  for (const facet of restriction.children) {
    const kind = facet.tag.replace(/^xs:/, '');
    const value = facet.attrs.value;
    if (value === undefined) throw new Error(`facet ${kind} without value`);
    if (kind === 'enumeration' || kind === 'pattern') {
      const key = kind === 'pattern' ? 'patterns' : 'enumeration';
      const list = (def[key] as string[] | undefined) ?? [];
      list.push(kind === 'enumeration' ? value.trim() : value);
      def[key] = list;
    } else if ((NUMERIC_FACETS as readonly string[]).includes(kind)) {
      def[kind] = Number(value.trim());
    } else if ((BOUND_FACETS as readonly string[]).includes(kind)) {
      def[kind] = value.trim();
    } else {
      throw new Error(`unsupported facet ${kind}`);
    }
  }
  return def as unknown as SimpleTypeDef;
}

/** Parses one e-CF XSD (root element `ECF`) into its element tree and simple types. */
export function readEcfXsd(text: string): XsdSchema {
  const { root, simpleTypes } = readXsdDocument(text, 'ECF');
  return { root, simpleTypes };
}

/**
 * Parses one DGII XSD whose global element `rootName` is the document (ECF, RFCE, ARECF, ACECF,
 * ANECF), keeping the occurrences of the root sequence's trailing xs:any: the Signature slot.
 */
export function readXsdDocument(text: string, rootName: string): XsdDocument {
  const schema = child(parseXml(text), 'xs:schema');
  const node = schema.children.find((c) => c.tag === 'xs:element' && c.attrs.name === rootName);
  if (node === undefined) throw new Error(`no ${rootName} element`);
  const root = readElement(node) as GroupElement;
  const simpleTypes: Record<string, SimpleTypeDef> = {};
  for (const entry of schema.children) {
    if (entry.tag !== 'xs:simpleType') continue;
    const name = entry.attrs.name?.trim();
    if (name === undefined) throw new Error('unnamed top-level simpleType');
    simpleTypes[name] = readSimpleType(entry);
  }
  return { root, simpleTypes, signature: readSignatureSlot(child(child(node, 'xs:complexType'), 'xs:sequence')) };
}

function readSignatureSlot(sequence: XmlNode): SignatureSlot | undefined {
  const particles = sequence.children.filter((c) => c.tag === 'xs:element' || c.tag === 'xs:any');
  const anyAt = particles.findIndex((c) => c.tag === 'xs:any');
  if (anyAt < 0) return undefined;
  if (anyAt !== particles.length - 1) throw new Error('xs:any is only supported as the last particle of the root sequence');
  const any = particles[anyAt] as XmlNode;
  return { min: occurs(any.attrs.minOccurs), max: occurs(any.attrs.maxOccurs) };
}
