/** The small pieces of PDF syntax the writer needs: numbers, strings, dates. */

// Beyond this a coordinate is a bug, not a layout; it also keeps String() away from exponent form,
// which PDF cannot read.
const MAX_MAGNITUDE = 1e7;

/** A PDF number: integer when it is one, else at most three decimals. */
export function num(value: number): string {
  if (!Number.isFinite(value) || Math.abs(value) > MAX_MAGNITUDE) {
    throw new RangeError(`not a usable PDF number: ${value}`);
  }
  // String(-0) is "0", so a rounded-away negative needs no special case.
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
}

const LITERAL_SPECIALS = /[\\()\r]/g;

/**
 * A literal string `( … )` around a byte string (chars 0–255). Backslash and both parentheses are
 * escaped so unbalanced ones cannot end the string early; CR is escaped because readers turn a raw
 * one into LF. Other bytes are written as they are: the file is binary.
 */
export function literalString(bytes: string): string {
  return `(${bytes.replace(LITERAL_SPECIALS, escapeSpecial)})`;
}

function escapeSpecial(ch: string): string {
  return ch === '\r' ? '\\r' : `\\${ch}`;
}

/**
 * A PDF text string (document information, outside content streams). Printable ASCII stays a
 * readable literal; anything else becomes UTF-16BE with a byte-order mark, in hex, which every
 * reader decodes and which needs no escaping. Control characters are removed and lone surrogates
 * become U+FFFD so the UTF-16 is well formed.
 */
export function textString(value: string): string {
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  if (/^[\x20-\x7e]*$/.test(clean)) return literalString(clean);
  const units: string[] = ['<FEFF'];
  for (let i = 0; i < clean.length; i++) {
    let unit = clean.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = clean.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        units.push(hex4(unit), hex4(next));
        i++;
        continue;
      }
      unit = 0xfffd;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      unit = 0xfffd;
    }
    units.push(hex4(unit));
  }
  units.push('>');
  return units.join('');
}

function hex4(unit: number): string {
  return unit.toString(16).toUpperCase().padStart(4, '0');
}

/** A PDF date string, in UTC: (D:YYYYMMDDHHmmSSZ). */
export function dateString(date: Date): string {
  const t = date.getTime();
  if (!Number.isFinite(t)) throw new RangeError('invalid Date');
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`a PDF date needs a four-digit year, not ${year}`);
  const two = (n: number): string => String(n).padStart(2, '0');
  return (
    `(D:${String(year).padStart(4, '0')}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}` +
    `${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z)`
  );
}
