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

function checkName(name: string, what: 'element' | 'attribute'): void {
  if (!isQName(name)) throw new XmlError(XML_ERROR.INVALID_NAME, `"${name}" is not a valid XML ${what} name`);
}

const NO_ATTRIBUTES: readonly (readonly [string, string])[] = Object.freeze([]);

/**
 * el('Item', { Codigo: '01' }, el('Nombre', 'Café'), '...'); the attributes argument may be left out:
 * el('Version', '1.0').
 */
export function el(name: string, attributesOrChild?: XmlBuildAttributes | XmlBuildInput, ...rest: XmlBuildInput[]): XmlBuildElement {
  checkName(name, 'element');
  const isAttributes =
    typeof attributesOrChild === 'object' && attributesOrChild !== null && !Array.isArray(attributesOrChild) && !isBuildElement(attributesOrChild);
  let attributes = NO_ATTRIBUTES;
  if (isAttributes) {
    const list: [string, string][] = [];
    for (const [attributeName, value] of Object.entries(attributesOrChild as XmlBuildAttributes)) {
      if (value === undefined) continue;
      checkName(attributeName, 'attribute');
      list.push([attributeName, String(value)]);
    }
    attributes = list;
  }
  const children: XmlBuildChild[] = [];
  if (!isAttributes) flattenInto([attributesOrChild as XmlBuildInput], children);
  flattenInto(rest, children);
  return { kind: 'build-element', name, attributes, children };
}

/**
 * An element without attributes whose children are given as they will be written (no
 * flattening, no copy): for builders that make a whole document's elements (ecf/xml/build-tree.ts).
 */
export function plainEl(name: string, children: readonly XmlBuildChild[]): XmlBuildElement {
  checkName(name, 'element');
  return { kind: 'build-element', name, attributes: NO_ATTRIBUTES, children };
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

const TEXT_SPECIAL = /[&<>\r]/;
const ATTRIBUTE_SPECIAL = /[&<>"\t\n\r]/;
/** Printable ASCII: every character is XML's, so the full check (astral ranges, surrogates) is not needed. */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

export function escapeText(value: string): string {
  if (!PLAIN_ASCII.test(value)) checkChars(value);
  return TEXT_SPECIAL.test(value) ? value.replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c] ?? c) : value;
}

export function escapeAttribute(value: string): string {
  if (!PLAIN_ASCII.test(value)) checkChars(value);
  return ATTRIBUTE_SPECIAL.test(value) ? value.replace(/[&<>"\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? c) : value;
}

/** Compact output: no indentation or added whitespace, so what is signed is exactly what was built. */
export function serializeXml(root: XmlBuildElement, options: SerializeOptions): string {
  let out = options.declaration ? XML_DECLARATION : '';
  // An explicit stack instead of recursion: trees built from untrusted data cannot exhaust the
  // call stack. Each open element and the index of its next child, written as one string
  // (appending is cheaper than collecting pieces to join).
  const open: XmlBuildElement[] = [];
  const next: number[] = [];
  let element: XmlBuildElement | undefined = root;
  out += startTag(root);
  let at = 0;
  while (element !== undefined) {
    if (at === element.children.length) {
      out += `</${element.name}>`;
      element = open.pop();
      at = next.pop() ?? 0;
      continue;
    }
    const child = element.children[at++] as XmlBuildChild;
    if (typeof child === 'string') out += escapeText(child);
    else {
      out += startTag(child);
      open.push(element);
      next.push(at);
      element = child;
      at = 0;
    }
  }
  return out;
}

function startTag(e: XmlBuildElement): string {
  let tag = `<${e.name}`;
  for (const [name, value] of e.attributes) tag += ` ${name}="${escapeAttribute(value)}"`;
  return `${tag}>`;
}
