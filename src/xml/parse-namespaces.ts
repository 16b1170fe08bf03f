/** Namespace bookkeeping for the parser: declarations in scope along the open-element path, O(1) per lookup. */
import { splitQName, XML_NAMESPACE, XMLNS_NAMESPACE } from './chars.ts';
import { XML_ERROR, XmlError } from './errors.ts';
import type { XmlAttribute, XmlNamespaceDeclaration } from './types.ts';

export interface RawAttribute {
  readonly name: string;
  readonly value: string;
  readonly offset: number;
}

export class NamespaceScope {
  /** prefix → stack of URIs, innermost last; '' is the default namespace ('' URI = none). */
  private readonly bindings = new Map<string, string[]>([['xml', [XML_NAMESPACE]]]);

  /** Takes an element's xmlns attributes into scope (until release) and returns them as declarations. */
  declare(raw: readonly RawAttribute[]): XmlNamespaceDeclaration[] {
    const declared: XmlNamespaceDeclaration[] = [];
    const seen = new Set<string>();
    for (const { name, value, offset } of raw) {
      if (seen.has(name)) throw new XmlError(XML_ERROR.MALFORMED, `duplicate attribute ${name}`, offset);
      seen.add(name);
      let prefix: string;
      if (name === 'xmlns') prefix = '';
      else if (name.startsWith('xmlns:')) prefix = name.slice(6);
      else continue;
      checkDeclaration(prefix, value, offset);
      declared.push({ prefix, uri: value });
    }
    for (const { prefix, uri } of declared) {
      const stack = this.bindings.get(prefix);
      if (stack === undefined) this.bindings.set(prefix, [uri]);
      else stack.push(uri);
    }
    return declared;
  }

  release(declared: readonly XmlNamespaceDeclaration[]): void {
    for (const { prefix } of declared) this.bindings.get(prefix)?.pop();
  }

  /** The URI of a prefix ('' for the default namespace, '' when there is none); undeclared prefixes are errors. */
  resolve(prefix: string, offset: number): string {
    const stack = this.bindings.get(prefix);
    const uri = stack === undefined ? undefined : stack[stack.length - 1];
    if (prefix === '') return uri ?? '';
    if (uri === undefined) throw new XmlError(XML_ERROR.NAMESPACE, `namespace prefix ${prefix} is not declared`, offset);
    return uri;
  }

  /** Ordinary (non-xmlns) attributes with their namespaces; unprefixed attributes are in no namespace. */
  attributes(raw: readonly RawAttribute[]): XmlAttribute[] {
    const attributes: XmlAttribute[] = [];
    const expanded = new Set<string>();
    for (const { name, value, offset } of raw) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const { prefix, localName } = splitQName(name);
      const namespaceURI = prefix === '' ? '' : this.resolve(prefix, offset);
      // NUL cannot occur in XML, so it separates the parts of the key unambiguously.
      const key = `${namespaceURI}\u0000${localName}`;
      if (expanded.has(key)) throw new XmlError(XML_ERROR.NAMESPACE, `attribute ${name} duplicates another attribute's expanded name`, offset);
      expanded.add(key);
      attributes.push({ name, prefix, localName, namespaceURI, value });
    }
    return attributes;
  }
}

function checkDeclaration(prefix: string, uri: string, offset: number): void {
  if (prefix === 'xmlns') throw new XmlError(XML_ERROR.NAMESPACE, 'the xmlns prefix must not be declared', offset);
  if (prefix === 'xml') {
    if (uri !== XML_NAMESPACE) throw new XmlError(XML_ERROR.NAMESPACE, 'the xml prefix can only be bound to its own namespace', offset);
    return;
  }
  if (uri === XML_NAMESPACE || uri === XMLNS_NAMESPACE) {
    throw new XmlError(XML_ERROR.NAMESPACE, `namespace ${uri} is reserved and cannot be bound here`, offset);
  }
  if (prefix !== '' && uri === '') throw new XmlError(XML_ERROR.NAMESPACE, `prefix ${prefix} cannot be undeclared in XML 1.0`, offset);
}
