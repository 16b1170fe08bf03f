/**
 * Inclusive Canonical XML 1.0 (https://www.w3.org/TR/2001/REC-xml-c14n-20010315), by default without comments.
 * Handles the two node-sets XMLDSig needs: a whole document (optionally minus one element subtree, which is what
 * the enveloped-signature transform leaves) and one element subtree in its document context (SignedInfo).
 */
import { compareCodePoints, XML_NAMESPACE } from './chars.ts';
import { XML_ERROR, XmlError } from './errors.ts';
import { inScopeNamespaces } from './tree.ts';
import type { XmlAttribute, XmlDocument, XmlElement, XmlMisc, XmlNamespaceDeclaration, XmlNode } from './types.ts';

export interface C14nOptions {
  /** An element whose whole subtree is left out of the node-set. */
  readonly exclude?: XmlElement;
  /** The #WithComments variant; XMLDSig here never uses it, it exists for comparison with other tools. */
  readonly withComments?: boolean;
}

export function canonicalizeDocument(doc: XmlDocument, options: C14nOptions = {}): string {
  const out: string[] = [];
  // Outside the root, each rendered node sits on its own line: before the root a newline follows it, after, one precedes it.
  for (const node of doc.prolog) {
    const rendered = renderMisc(node, options);
    if (rendered !== undefined) out.push(rendered, '\n');
  }
  renderSubtree(doc.root, options, out);
  for (const node of doc.epilog) {
    const rendered = renderMisc(node, options);
    if (rendered !== undefined) out.push('\n', rendered);
  }
  return out.join('');
}

/** The node-set "this element and all its descendants" of its document, e.g. SignedInfo. */
export function canonicalizeElement(element: XmlElement, options: C14nOptions = {}): string {
  const out: string[] = [];
  renderSubtree(element, options, out);
  return out.join('');
}

export function escapeC14nText(value: string): string {
  return value.replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c] ?? c);
}

export function escapeC14nAttribute(value: string): string {
  return value.replace(/[&<"\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? c);
}

const TEXT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };
const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};

function renderMisc(node: XmlMisc | XmlNode, options: C14nOptions): string | undefined {
  if (node.kind === 'pi') return node.data === '' ? `<?${node.target}?>` : `<?${node.target} ${node.data}?>`;
  if (node.kind === 'comment') return options.withComments === true ? `<!--${node.value}-->` : undefined;
  return undefined;
}

/** C14N must fail on relative namespace URIs; an absolute one starts with a scheme. */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:/;

type Work = { readonly node: XmlNode } | { readonly close: string; readonly pushed: readonly XmlNamespaceDeclaration[] };

/** prefix → URIs rendered so far along the current path, innermost last ('' URI for an undeclared default). */
type RenderedScope = Map<string, string[]>;

function renderSubtree(apex: XmlElement, options: C14nOptions, out: string[]): void {
  if (apex === options.exclude) return;
  const scope: RenderedScope = new Map();
  const work: Work[] = [{ node: apex }];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    if ('close' in item) {
      out.push(`</${item.close}>`);
      for (const { prefix } of item.pushed) scope.get(prefix)?.pop();
      continue;
    }
    const { node } = item;
    if (node.kind === 'text') {
      out.push(escapeC14nText(node.value));
      continue;
    }
    if (node.kind !== 'element') {
      const rendered = renderMisc(node, options);
      if (rendered !== undefined) out.push(rendered);
      continue;
    }
    if (node === options.exclude) continue;
    const isApex = node === apex;
    const namespaces = isApex ? apexNamespaces(node) : changedNamespaces(node, scope);
    const attributes = isApex ? withInheritedXmlAttributes(node) : node.attributes;
    out.push(startTag(node.name, namespaces, attributes));
    // The apex starts the rendered scope with everything it has in scope; descendants add their own declarations.
    const pushed = isApex ? namespaces : node.namespaceDeclarations;
    for (const { prefix, uri } of pushed) {
      if (uri !== '' && !ABSOLUTE_URI.test(uri)) {
        throw new XmlError(XML_ERROR.NAMESPACE, `relative namespace URI "${uri}" cannot be canonicalized (C14N 1.0 §2.1)`);
      }
      const stack = scope.get(prefix);
      if (stack === undefined) scope.set(prefix, [uri]);
      else stack.push(uri);
    }
    work.push({ close: node.name, pushed });
    for (let i = node.children.length - 1; i >= 0; i--) work.push({ node: node.children[i] as XmlNode });
  }
}

/** Every namespace in scope, since no output ancestor has rendered any; an empty default needs no xmlns="". */
function apexNamespaces(element: XmlElement): XmlNamespaceDeclaration[] {
  const declarations: XmlNamespaceDeclaration[] = [];
  for (const [prefix, uri] of inScopeNamespaces(element)) {
    if (prefix !== 'xml' && uri !== '') declarations.push({ prefix, uri });
  }
  return declarations;
}

/**
 * A descendant's declarations that differ from what its parent (always in the output for these node-sets) has
 * in scope; xmlns="" only matters when the parent had a non-empty default.
 */
function changedNamespaces(element: XmlElement, scope: RenderedScope): XmlNamespaceDeclaration[] {
  const declarations: XmlNamespaceDeclaration[] = [];
  for (const declaration of element.namespaceDeclarations) {
    if (declaration.prefix === 'xml') continue;
    const stack = scope.get(declaration.prefix);
    const current = stack === undefined ? undefined : stack[stack.length - 1];
    const effective = declaration.prefix === '' ? (current ?? '') : current;
    if (effective !== declaration.uri) declarations.push(declaration);
  }
  return declarations;
}

/** C14N 1.0 carries xml:* attributes (xml:lang, xml:space...) of omitted ancestors onto the apex. */
function withInheritedXmlAttributes(apex: XmlElement): readonly XmlAttribute[] {
  const seen = new Set(apex.attributes.filter((a) => a.namespaceURI === XML_NAMESPACE).map((a) => a.localName));
  const inherited: XmlAttribute[] = [];
  for (let ancestor = apex.parent; ancestor !== null; ancestor = ancestor.parent) {
    for (const attribute of ancestor.attributes) {
      if (attribute.namespaceURI === XML_NAMESPACE && !seen.has(attribute.localName)) {
        seen.add(attribute.localName);
        inherited.push(attribute);
      }
    }
  }
  return inherited.length === 0 ? apex.attributes : [...apex.attributes, ...inherited];
}

function startTag(name: string, namespaces: readonly XmlNamespaceDeclaration[], attributes: readonly XmlAttribute[]): string {
  const parts = [`<${name}`];
  const sortedNamespaces = [...namespaces].sort((a, b) => compareCodePoints(a.prefix, b.prefix));
  for (const { prefix, uri } of sortedNamespaces) {
    parts.push(prefix === '' ? ` xmlns="${escapeC14nAttribute(uri)}"` : ` xmlns:${prefix}="${escapeC14nAttribute(uri)}"`);
  }
  const sortedAttributes = [...attributes].sort(
    (a, b) => compareCodePoints(a.namespaceURI, b.namespaceURI) || compareCodePoints(a.localName, b.localName),
  );
  for (const { name: attributeName, value } of sortedAttributes) parts.push(` ${attributeName}="${escapeC14nAttribute(value)}"`);
  parts.push('>');
  return parts.join('');
}
