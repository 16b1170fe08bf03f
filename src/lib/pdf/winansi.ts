/**
 * JS strings to WinAnsiEncoding (Windows code page 1252), the only single-byte encoding every PDF
 * reader knows for the standard-14 fonts without embedding anything.
 *
 * The result is a "byte string": one JS char per byte, every char code 0–255, so content streams can
 * be assembled as strings and turned into bytes once with Buffer.from(s, 'latin1').
 *
 * Characters WinAnsi cannot show (emoji, CJK, Arabic, Hebrew, lone surrogates…) become '?'
 * (REPLACEMENT_CHAR): WinAnsi has no U+FFFD, and a visible '?' tells the reader something was lost
 * where a silent drop would not. Control characters (C0, DEL, C1) never reach the PDF: line breaks
 * and tabs become a space, the rest are dropped, as are invisible format characters (zero-width
 * spaces and joiners, bidi marks, variation selectors) that would otherwise each print as '?'.
 */

/** The character written in place of one WinAnsi cannot encode. */
export const REPLACEMENT_CHAR = '?';
const REPLACEMENT = 0x3f;
const DROP = -1;
const SPACE = 0x20;

// cp1252's 0x80–0x9F block, plus a few look-alikes that Intl and word processors produce
// (narrow no-break space in es-* number formats, Unicode minus, typographic spaces and hyphens).
const EXTRAS = new Map<number, number>([
  [0x20ac, 0x80], [0x201a, 0x82], [0x0192, 0x83], [0x201e, 0x84], [0x2026, 0x85], [0x2020, 0x86],
  [0x2021, 0x87], [0x02c6, 0x88], [0x2030, 0x89], [0x0160, 0x8a], [0x2039, 0x8b], [0x0152, 0x8c],
  [0x017d, 0x8e], [0x2018, 0x91], [0x2019, 0x92], [0x201c, 0x93], [0x201d, 0x94], [0x2022, 0x95],
  [0x2013, 0x96], [0x2014, 0x97], [0x02dc, 0x98], [0x2122, 0x99], [0x0161, 0x9a], [0x203a, 0x9b],
  [0x0153, 0x9c], [0x017e, 0x9e], [0x0178, 0x9f],
  [0x2007, 0xa0], [0x202f, 0xa0], [0x2212, 0x2d], [0x2010, 0x2d], [0x2011, 0x2d], [0x2043, 0x2d],
  [0x2028, SPACE], [0x2029, SPACE], [0x0085, SPACE],
]);

function isInvisibleFormat(cp: number): boolean {
  return (
    cp === 0x00ad || // soft hyphen: only visible at a hyphenation point, and we never hyphenate
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x206f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    cp === 0x061c ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  );
}

/** The WinAnsi byte for one code point, DROP when it must vanish, REPLACEMENT when unencodable. */
function byteFor(cp: number): number {
  if (cp >= 0x20 && cp <= 0x7e) return cp;
  if (cp >= 0xa0 && cp <= 0xff) return cp === 0xad ? DROP : cp;
  if (cp === 0x09 || cp === 0x0a || cp === 0x0b || cp === 0x0c || cp === 0x0d) return SPACE;
  if (cp < 0xa0) return DROP; // the rest of C0, DEL and C1
  if (cp >= 0x2000 && cp <= 0x200a) return SPACE;
  const extra = EXTRAS.get(cp);
  if (extra !== undefined) return extra;
  if (isInvisibleFormat(cp)) return DROP;
  return REPLACEMENT;
}

// Strings made only of these need neither normalisation (all below U+0300, so NFC leaves them be)
// nor mapping: the common case for invoice text, kept off the slow path.
const PLAIN = /^[\x20-\x7e\xa0-\xac\xae-\xff]*$/;

/** `text` as a WinAnsi byte string (one char per byte), NFC-normalised first so "n\u0303" is ñ. */
export function toWinAnsi(text: string): string {
  if (PLAIN.test(text)) return text;
  const normal = text.normalize('NFC');
  const bytes: number[] = [];
  for (const ch of normal) {
    const cp = ch.codePointAt(0) ?? REPLACEMENT;
    const b = byteFor(cp);
    if (b === REPLACEMENT) pushCompatibility(ch, bytes);
    else if (b !== DROP) bytes.push(b);
  }
  return bytesToString(bytes);
}

/** Like toWinAnsi, as bytes. */
export function winAnsiBytes(text: string): Buffer {
  return Buffer.from(toWinAnsi(text), 'latin1');
}

// A character with no WinAnsi byte may still have a compatibility form that has them: the "ﬁ"
// ligature is "fi", full-width "１" is "1". Anything else is one '?'.
function pushCompatibility(ch: string, bytes: number[]): void {
  const compat = ch.normalize('NFKC');
  if (compat !== ch) {
    const mapped: number[] = [];
    for (const c of compat) {
      const b = byteFor(c.codePointAt(0) ?? REPLACEMENT);
      if (b === REPLACEMENT) {
        bytes.push(REPLACEMENT);
        return;
      }
      if (b !== DROP) mapped.push(b);
    }
    if (mapped.length > 0) {
      for (const b of mapped) bytes.push(b);
      return;
    }
  }
  bytes.push(REPLACEMENT);
}

function bytesToString(bytes: number[]): string {
  const CHUNK = 8192; // stays far below the engine's limit on spread arguments
  if (bytes.length <= CHUNK) return String.fromCharCode(...bytes);
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) parts.push(String.fromCharCode(...bytes.slice(i, i + CHUNK)));
  return parts.join('');
}
