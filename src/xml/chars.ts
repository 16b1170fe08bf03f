/** Character classes and reserved names from XML 1.0 (5th ed.) and Namespaces in XML 1.0. */

export const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
export const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';

// NameStartChar of XML 1.0 §2.3 without ':' (an NCName), and the extra NameChar characters.
const NC_START =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NC_CHAR = `${NC_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
const NCNAME = `[${NC_START}][${NC_CHAR}]*`;

/** Sticky matchers: callers set lastIndex and read the match at that exact position. */
export const QNAME_AT = new RegExp(`${NCNAME}(?::${NCNAME})?`, 'uy');
export const NCNAME_AT = new RegExp(NCNAME, 'uy');
export const NAME_AT = new RegExp(`[:${NC_START}][:${NC_CHAR}]*`, 'uy');

const QNAME_WHOLE = new RegExp(`^${NCNAME}(?::${NCNAME})?$`, 'u');

/** Anything outside the XML 1.0 Char production (lone surrogates included, thanks to the u flag). */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function isQName(name: string): boolean {
  return QNAME_WHOLE.test(name);
}

/** Index of the first character that XML cannot carry, or -1. */
export function findIllegalChar(text: string): number {
  const match = NOT_XML_CHAR.exec(text);
  return match === null ? -1 : match.index;
}

export function isXmlCharCode(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** XML's S production; CR never reaches the parser after line-end normalisation but is kept for completeness. */
export function isXmlSpace(code: number): boolean {
  return code === 0x20 || code === 0x9 || code === 0xa || code === 0xd;
}

export function splitQName(name: string): { prefix: string; localName: string } {
  const colon = name.indexOf(':');
  return colon < 0 ? { prefix: '', localName: name } : { prefix: name.slice(0, colon), localName: name.slice(colon + 1) };
}

/** Compares by Unicode code point, as C14N's "lexicographic order" requires (UTF-16 order differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xHigh = x >= 0xd800 && x <= 0xdfff;
    const yHigh = y >= 0xd800 && y <= 0xdfff;
    // A surrogate stands for a code point above every BMP character.
    if (xHigh !== yHigh) return xHigh ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
