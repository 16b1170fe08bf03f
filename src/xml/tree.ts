/** Read helpers over parsed trees. Lookups go by local name: e-CF documents use one default namespace or none. */
import { XML_NAMESPACE } from './chars.ts';
import type { XmlElement, XmlNode } from './types.ts';

export function isElement(node: XmlNode): node is XmlElement {
  return node.kind === 'element';
}

export function elementChildren(parent: XmlElement): XmlElement[] {
  return parent.children.filter(isElement);
}

/** First child element with this local name (and namespace, when given). */
export function childElement(parent: XmlElement, localName: string, namespaceURI?: string): XmlElement | undefined {
  for (const child of parent.children) {
    if (child.kind === 'element' && child.localName === localName && (namespaceURI === undefined || child.namespaceURI === namespaceURI)) {
      return child;
    }
  }
  return undefined;
}

export function childElementsNamed(parent: XmlElement, localName: string, namespaceURI?: string): XmlElement[] {
  return parent.children.filter(
    (child): child is XmlElement =>
      child.kind === 'element' && child.localName === localName && (namespaceURI === undefined || child.namespaceURI === namespaceURI),
  );
}

/** Follows child elements by local name, e.g. findPath(root, ['Encabezado', 'IdDoc', 'eNCF']). */
export function findPath(from: XmlElement, path: readonly string[]): XmlElement | undefined {
  let current: XmlElement | undefined = from;
  for (const step of path) {
    if (current === undefined) return undefined;
    current = childElement(current, step);
  }
  return current;
}

/** Concatenated text of all descendant text nodes (the XPath string-value), without recursion. */
export function textContent(element: XmlElement): string {
  const parts: string[] = [];
  const pending: XmlNode[] = [element];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.kind === 'text') parts.push(node.value);
    else if (node.kind === 'element') for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i] as XmlNode);
  }
  return parts.join('');
}

/** Text of the element at a path, or undefined when the path does not exist. */
export function textAt(from: XmlElement, path: readonly string[]): string | undefined {
  const found = findPath(from, path);
  return found === undefined ? undefined : textContent(found);
}

/**
 * Namespace bindings in scope at an element: prefix → URI, '' for the default namespace (absent when
 * there is none). The xml prefix is always bound. Computed on demand by walking the ancestors, which
 * keeps parsing linear instead of copying a scope map into every element.
 */
export function inScopeNamespaces(element: XmlElement): Map<string, string> {
  const chain: XmlElement[] = [];
  for (let current: XmlElement | null = element; current !== null; current = current.parent) chain.push(current);
  const scope = new Map<string, string>([['xml', XML_NAMESPACE]]);
  for (let i = chain.length - 1; i >= 0; i--) {
    for (const { prefix, uri } of (chain[i] as XmlElement).namespaceDeclarations) {
      if (prefix === '' && uri === '') scope.delete('');
      else scope.set(prefix, uri);
    }
  }
  return scope;
}
