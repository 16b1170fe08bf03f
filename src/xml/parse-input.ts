/** Turning raw input into the normalised text the parser walks, plus the pieces of XML that are pure text processing. */
import { findIllegalChar, isXmlCharCode, NAME_AT } from './chars.ts';
import { XML_ERROR, XmlError } from './errors.ts';
import type { XmlDeclaration } from './types.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Decodes, checks size and characters, and applies XML 1.0 §2.11 line-end normalisation. */
export function prepareInput(input: string | Uint8Array, maxBytes: number): string {
  let text: string;
  if (typeof input === 'string') {
    // UTF-8 never takes fewer bytes than UTF-16 code units, so the cheap length test settles most oversize input.
    if (input.length > maxBytes || Buffer.byteLength(input, 'utf8') > maxBytes) {
      throw new XmlError(XML_ERROR.TOO_LARGE, `XML input is larger than ${maxBytes} bytes`);
    }
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  } else {
    if (input.byteLength > maxBytes) {
      throw new XmlError(XML_ERROR.TOO_LARGE, `XML input is larger than ${maxBytes} bytes`);
    }
    try {
      text = utf8.decode(input);
    } catch {
      throw new XmlError(XML_ERROR.ENCODING, 'XML input is not valid UTF-8');
    }
  }
  text = text.replace(/\r\n?/g, '\n');
  const bad = findIllegalChar(text);
  if (bad >= 0) {
    const code = text.codePointAt(bad) ?? 0;
    throw new XmlError(XML_ERROR.INVALID_CHAR, `character U+${code.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`, bad);
  }
  return text;
}

const DECLARATION =
  /^<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(?:"([^"]*)"|'([^']*)')(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(?:"([^"]*)"|'([^']*)'))?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(?:"([^"]*)"|'([^']*)'))?[ \t\n]*\?>$/;

/** Reads the XML declaration if the text starts with one; returns it and the offset just past it. */
export function readDeclaration(text: string): { declaration: XmlDeclaration | undefined; end: number } {
  if (!/^<\?xml[ \t\n?]/.test(text)) return { declaration: undefined, end: 0 };
  const close = text.indexOf('?>');
  if (close < 0) throw new XmlError(XML_ERROR.MALFORMED, 'unterminated XML declaration', 0);
  const match = DECLARATION.exec(text.slice(0, close + 2));
  if (match === null) throw new XmlError(XML_ERROR.MALFORMED, 'malformed XML declaration', 0);
  const version = match[1] ?? match[2] ?? '';
  const encoding = match[3] ?? match[4];
  const standalone = match[5] ?? match[6];
  if (version !== '1.0') throw new XmlError(XML_ERROR.MALFORMED, `unsupported XML version "${version}"`, 0);
  if (encoding !== undefined && !/^utf-?8$/i.test(encoding)) {
    throw new XmlError(XML_ERROR.ENCODING, `XML declares encoding "${encoding}"; only UTF-8 is accepted`, 0);
  }
  if (standalone !== undefined && standalone !== 'yes' && standalone !== 'no') {
    throw new XmlError(XML_ERROR.MALFORMED, 'standalone must be "yes" or "no"', 0);
  }
  return {
    declaration: { version, encoding, standalone: standalone === undefined ? undefined : standalone === 'yes' },
    end: close + 2,
  };
}

const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };
const HEX_REF = /^#x0*[0-9a-fA-F]{1,8}$/;
const DECIMAL_REF = /^#0*[0-9]{1,9}$/;

function decodeReference(ref: string, offset: number): string {
  const predefined = Object.hasOwn(PREDEFINED_ENTITIES, ref) ? PREDEFINED_ENTITIES[ref] : undefined;
  if (predefined !== undefined) return predefined;
  let code: number | undefined;
  if (HEX_REF.test(ref)) code = Number.parseInt(ref.slice(2), 16);
  else if (DECIMAL_REF.test(ref)) code = Number.parseInt(ref.slice(1), 10);
  if (code !== undefined) {
    if (!isXmlCharCode(code)) {
      throw new XmlError(XML_ERROR.INVALID_CHAR, `character reference &${ref}; is not a legal XML character`, offset);
    }
    return String.fromCodePoint(code);
  }
  if (ref.startsWith('#')) throw new XmlError(XML_ERROR.INVALID_CHAR, `invalid character reference &${ref.slice(0, 20)};`, offset);
  NAME_AT.lastIndex = 0;
  const name = NAME_AT.exec(ref);
  if (name !== null && name[0] === ref) {
    throw new XmlError(XML_ERROR.ENTITY_FORBIDDEN, `entity reference &${ref.slice(0, 40)}; is not allowed (only the five predefined entities are)`, offset);
  }
  throw new XmlError(XML_ERROR.MALFORMED, "'&' must start a reference; write &amp; for a literal ampersand", offset);
}

/**
 * Resolves references in character data or an attribute value. Attribute values also get the
 * §3.3.3 CDATA normalisation: literal whitespace becomes a space, while whitespace that came
 * from a character reference is kept as written.
 */
export function decodeCharacterData(raw: string, offset: number, isAttribute: boolean): string {
  let amp = raw.indexOf('&');
  if (amp < 0) return isAttribute ? raw.replace(/[\t\n\r]/g, ' ') : raw;
  const parts: string[] = [];
  let from = 0;
  while (amp >= 0) {
    const literal = raw.slice(from, amp);
    parts.push(isAttribute ? literal.replace(/[\t\n\r]/g, ' ') : literal);
    const semicolon = raw.indexOf(';', amp + 1);
    if (semicolon < 0) throw new XmlError(XML_ERROR.MALFORMED, "'&' without a terminating ';'", offset + amp);
    parts.push(decodeReference(raw.slice(amp + 1, semicolon), offset + amp));
    from = semicolon + 1;
    amp = raw.indexOf('&', from);
  }
  const tail = raw.slice(from);
  parts.push(isAttribute ? tail.replace(/[\t\n\r]/g, ' ') : tail);
  return parts.join('');
}
