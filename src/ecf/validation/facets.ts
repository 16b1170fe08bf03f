// Checks one leaf value from the JSON against its XSD simple type and returns the text the
// XML will carry. JSON strings are kept verbatim and JSON numbers become their shortest exact
// decimal text, except numeric codes, which become the XSD's literal (1 → "1.0" for Version).
import { findIllegalChar } from '../../xml/chars.ts';
import { compare, parseDecimal, significantDigits, type Dec } from '../decimal.ts';
import { LEAF_FORMATS } from './leaf-formats.ts';
import { xsdPatternToRegExp } from './xsd-regex.ts';
import type { SimpleTypeDef } from '../schema/schema-types.ts';

export interface LeafResult {
  readonly text: string | undefined;
  readonly problems: readonly string[];
}

/** Digits a binary double reproduces exactly through a decimal round trip. */
const MAX_NUMBER_DIGITS = 15;
const MAX_LISTED_VALUES = 12;
const INTEGER = /^[+-]?\d+$/;

const regexCache = new Map<string, RegExp>();
function regex(pattern: string): RegExp {
  let compiled = regexCache.get(pattern);
  if (compiled === undefined) {
    compiled = xsdPatternToRegExp(pattern);
    regexCache.set(pattern, compiled);
  }
  return compiled;
}

function numberText(value: number): { text?: string; problem?: string } {
  if (!Number.isFinite(value)) return { problem: 'is not a finite number' };
  const text = String(value);
  if (/e/i.test(text)) return { problem: 'is too large or too small for a JSON number; send it as a string' };
  if ((significantDigits(text)?.total ?? 0) > MAX_NUMBER_DIGITS) {
    return { problem: `has more than ${MAX_NUMBER_DIGITS} significant digits, which a JSON number cannot carry exactly; send it as a string` };
  }
  return { text };
}

/** A numeric value's spelling-independent key: "007.50" and "7.5" both give "7.5". */
function valueKey(text: string): string | undefined {
  const value = parseDecimal(text);
  if (value === undefined) return undefined;
  const digits = (value.units < 0 ? -value.units : value.units).toString().padStart(value.scale + 1, '0');
  const int = digits.slice(0, digits.length - value.scale);
  const frac = digits.slice(digits.length - value.scale).replace(/0+$/, '');
  const sign = value.units < 0 ? '-' : '';
  return `${sign}${int}${frac === '' ? '' : `.${frac}`}`;
}

/** A numeric code list by value key, and by the literals themselves (the common spelling). */
interface EnumerationIndex {
  readonly byKey: ReadonlyMap<string, string>;
  readonly literals: ReadonlySet<string>;
}
const enumerationIndexes = new WeakMap<SimpleTypeDef, EnumerationIndex>();

/** The enumeration literal equal to `text` (by value for numeric types), if any. */
function enumerationLiteral(def: SimpleTypeDef, text: string): string | undefined {
  if (def.enumeration === undefined) return undefined;
  if (def.base === 'string') return def.enumeration.includes(text) ? text : undefined;
  let index = enumerationIndexes.get(def);
  if (index === undefined) {
    index = { byKey: new Map(def.enumeration.map((literal) => [valueKey(literal) ?? literal, literal])), literals: new Set(def.enumeration) };
    enumerationIndexes.set(def, index);
  }
  if (index.literals.has(text)) return text;
  const key = valueKey(text);
  return key === undefined ? undefined : index.byKey.get(key);
}

function describeValues(values: readonly string[], typeName: string): string {
  if (values.length <= MAX_LISTED_VALUES) return `must be one of: ${values.join(', ')}`;
  return `must be one of the ${values.length} codes DGII lists for ${typeName}`;
}

/** Characters as XSD counts them (code points: a surrogate pair is one), without an array. */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The schema's bounds of a type, parsed once. */
interface Bounds {
  readonly minInclusive: Dec | undefined;
  readonly maxInclusive: Dec | undefined;
  readonly minExclusive: Dec | undefined;
  readonly maxExclusive: Dec | undefined;
}
const boundsOfType = new WeakMap<SimpleTypeDef, Bounds>();
function boundsOf(def: SimpleTypeDef): Bounds {
  let b = boundsOfType.get(def);
  if (b === undefined) {
    const parse = (limit: string | undefined): Dec | undefined => (limit === undefined ? undefined : parseDecimal(limit));
    b = { minInclusive: parse(def.minInclusive), maxInclusive: parse(def.maxInclusive), minExclusive: parse(def.minExclusive), maxExclusive: parse(def.maxExclusive) };
    boundsOfType.set(def, b);
  }
  return b;
}

const NO_PROBLEMS: readonly string[] = Object.freeze([]);

/**
 * What is wrong with `text` as a value of `def` (NO_PROBLEMS when nothing). It runs on every
 * leaf of every emitted document, so a valid value allocates nothing and each message is only
 * written once its check has failed.
 */
function valueProblems(text: string, def: SimpleTypeDef, typeName: string, literal: string | undefined): readonly string[] {
  let problems: string[] | undefined;
  // Parsed once: the lexical check, the digit counts and the bounds all read it.
  const value = def.base === 'string' ? undefined : parseDecimal(text);
  if (def.base !== 'string') {
    const lexicalOk = def.base === 'integer' ? INTEGER.test(text) : value !== undefined;
    if (!lexicalOk) {
      return [def.base === 'integer'
        ? 'must be a whole number'
        : 'must be a decimal number such as 1234.56 (dot as decimal separator, no thousands separator)'];
    }
  }
  if (def.enumeration !== undefined && literal === undefined) (problems ??= []).push(describeValues(def.enumeration, typeName));
  const length = def.minLength === undefined && def.maxLength === undefined ? 0 : codePoints(text);
  if (def.minLength !== undefined && length < def.minLength) {
    (problems ??= []).push(def.minLength === 1 ? 'must not be empty' : `must be at least ${def.minLength} characters long`);
  }
  if (def.maxLength !== undefined && length > def.maxLength) {
    (problems ??= []).push(`must be at most ${def.maxLength} characters long (has ${length})`);
  }
  if (value !== undefined) {
    const digits = def.fractionDigits === undefined && def.totalDigits === undefined ? undefined : significantDigits(text);
    if (digits !== undefined && def.fractionDigits !== undefined && digits.fraction > def.fractionDigits) {
      (problems ??= []).push(`must have at most ${def.fractionDigits} decimal places`);
    }
    if (digits !== undefined && def.totalDigits !== undefined && digits.total > def.totalDigits) {
      (problems ??= []).push(`must have at most ${def.totalDigits} digits in total`);
    }
    const b = boundsOf(def);
    if (b.minInclusive !== undefined && compare(value, b.minInclusive) < 0) (problems ??= []).push(`must be at least ${def.minInclusive ?? ''}`);
    if (b.maxInclusive !== undefined && compare(value, b.maxInclusive) > 0) (problems ??= []).push(`must be at most ${def.maxInclusive ?? ''}`);
    if (b.minExclusive !== undefined && compare(value, b.minExclusive) <= 0) (problems ??= []).push(`must be greater than ${def.minExclusive ?? ''}`);
    if (b.maxExclusive !== undefined && compare(value, b.maxExclusive) >= 0) (problems ??= []).push(`must be less than ${def.maxExclusive ?? ''}`);
  }
  const format = LEAF_FORMATS[typeName];
  if (format !== undefined && !format.test(text)) (problems ??= []).push(format.message);
  // A specific message already explains the value; the raw XSD pattern would only repeat it.
  if (problems === undefined && def.patterns !== undefined && !matchesPattern(def.patterns, text)) {
    (problems ??= []).push(`does not have the format DGII requires (XSD pattern ${def.patterns.join(' | ')})`);
  }
  return problems ?? NO_PROBLEMS;
}

function matchesPattern(patterns: readonly string[], text: string): boolean {
  for (const p of patterns) if (regex(p).test(text)) return true;
  return false;
}

/**
 * The e-CF travels as XML 1.0, which cannot carry control characters, U+FFFE/U+FFFF or a lone
 * UTF-16 surrogate; such a value would pass here and only fail at signing, with its eNCF spent.
 */
function illegalCharProblem(text: string): string | undefined {
  const at = findIllegalChar(text);
  if (at < 0) return undefined;
  const code = text.charCodeAt(at);
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  return code >= 0xd800 && code <= 0xdfff
    ? `contains a lone UTF-16 surrogate (\\u${hex} without its pair), which is not text`
    : `contains the character U+${hex}, which XML (and so the e-CF) cannot carry`;
}

export function checkLeaf(raw: unknown, def: SimpleTypeDef, typeName: string): LeafResult {
  let text: string;
  if (typeof raw === 'string') {
    text = raw;
  } else if (typeof raw === 'number' && (def.base !== 'string' || def.enumeration !== undefined)) {
    // A string type takes a number only when it is a code list (UnidadMedida in some XSDs):
    // the code must then match exactly, so a lost leading zero cannot slip through. Free
    // strings such as RNC or cédula must be JSON strings ("00112345678" as a number is 112345678).
    const converted = numberText(raw);
    if (converted.text === undefined) return { text: undefined, problems: [converted.problem ?? 'is not valid'] };
    text = converted.text;
  } else {
    const expected = def.base === 'string' ? 'a JSON string' : 'a JSON number or a numeric string';
    const got = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : `a ${typeof raw}`;
    const hint = typeof raw === 'number' ? ' (as a number, leading zeros would be lost)' : '';
    return { text: undefined, problems: [`must be ${expected}, not ${got}${hint}`] };
  }
  const illegal = illegalCharProblem(text);
  if (illegal !== undefined) return { text: undefined, problems: [illegal] };
  const literal = enumerationLiteral(def, text);
  const problems = valueProblems(text, def, typeName, literal);
  if (problems.length > 0) return { text: undefined, problems };
  // Numeric codes are compared by value ("01" is IndicadorFacturacion 1), so later rules and
  // the XML see the XSD's own literal rather than one of its many spellings.
  return { text: literal ?? text, problems };
}
