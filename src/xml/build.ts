/** Building XML in code and writing it out compactly. Names are checked and text escaped, so output is always well-formed. */
import { findIllegalChar, isQName } from './chars.ts';
import { XML_ERROR, XmlError } from './errors.ts';

export interface XmlBuildElement {
  readonly kind: 'build-element';
  readonly name: string;
  /** In output order; xmlns / xmlns:p declarations are written like any other attribute. */
  readonly attributes: readonly (readonly [name: string, value: string])[];
  readonly children: readonly XmlBuildChild[];
}

export type XmlBuildChild = XmlBuildElement | string;

/** Attribute values; undefined drops the attribute, which keeps optional fields out of call sites' logic. */
export type XmlBuildAttributes = Readonly<Record<string, string | number | undefined>>;

/** Children may be nested arrays and undefined/null/false (skipped), so conditional content reads naturally. */
export type XmlBuildInput = XmlBuildChild | number | null | undefined | false | readonly XmlBuildInput[];

function isBuildElement(value: unknown): value is XmlBuildElement {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'build-element';
}

/**
 * el('Item', { Codigo: '01' }, el('Nombre', 'Café'), '...'); the attributes argument may be left out:
 * el('Version', '1.0').
 */
export function el(name: string, attributesOrChild?: XmlBuildAttributes | XmlBuildInput, ...rest: XmlBuildInput[]): XmlBuildElement {
  if (!isQName(name)) throw new XmlError(XML_ERROR.INVALID_NAME, `"${name}" is not a valid XML element name`);
  const isAttributes =
    typeof attributesOrChild === 'object' && attributesOrChild !== null && !Array.isArray(attributesOrChild) && !isBuildElement(attributesOrChild);
  const attributes: [string, string][] = [];
  if (isAttributes) {
    for (const [attributeName, value] of Object.entries(attributesOrChild as XmlBuildAttributes)) {
      if (value === undefined) continue;
      if (!isQName(attributeName)) throw new XmlError(XML_ERROR.INVALID_NAME, `"${attributeName}" is not a valid XML attribute name`);
      attributes.push([attributeName, String(value)]);
    }
  }
  const children: XmlBuildChild[] = [];
  const inputs: XmlBuildInput[] = isAttributes ? rest : [attributesOrChild as XmlBuildInput, ...rest];
  flattenInto(inputs, children);
  return { kind: 'build-element', name, attributes, children };
}

function flattenInto(inputs: readonly XmlBuildInput[], children: XmlBuildChild[]): void {
  for (const input of inputs) {
    if (input === undefined || input === null || input === false) continue;
    if (Array.isArray(input)) flattenInto(input as readonly XmlBuildInput[], children);
    else if (typeof input === 'number') children.push(String(input));
    else children.push(input as XmlBuildChild);
  }
}

export interface SerializeOptions {
  /** Prefix `<?xml version="1.0" encoding="utf-8"?>`. */
  readonly declaration: boolean;
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

const TEXT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };
// Whitespace in attributes is written as references so a parser's value normalisation gives back the same value.
const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
};

function checkChars(value: string): string {
  const bad = findIllegalChar(value);
  if (bad >= 0) {
    const code = (value.codePointAt(bad) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    throw new XmlError(XML_ERROR.INVALID_CHAR, `character U+${code} cannot be written in XML`);
  }
  return value;
}

export function escapeText(value: string): string {
  return checkChars(value).replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c] ?? c);
}

export function escapeAttribute(value: string): string {
  return checkChars(value).replace(/[&<>"\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? c);
}

/** Compact output: no indentation or added whitespace, so what is signed is exactly what was built. */
export function serializeXml(root: XmlBuildElement, options: SerializeOptions): string {
  const out: string[] = options.declaration ? [XML_DECLARATION] : [];
  // An explicit stack instead of recursion: trees built from untrusted data cannot exhaust the call stack.
  const work: (XmlBuildChild | { readonly close: string })[] = [root];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    if (typeof item === 'string') {
      out.push(escapeText(item));
    } else if ('close' in item) {
      out.push(`</${item.close}>`);
    } else {
      out.push(`<${item.name}`);
      for (const [name, value] of item.attributes) out.push(` ${name}="${escapeAttribute(value)}"`);
      out.push('>');
      work.push({ close: item.name });
      for (let i = item.children.length - 1; i >= 0; i--) work.push(item.children[i] as XmlBuildChild);
    }
  }
  return out.join('');
}
