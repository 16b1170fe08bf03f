/** Greedy line breaking for invoice descriptions and addresses, measured with the real font widths. */
import { encodedWidth, glyphWidth } from './metrics.ts';
import type { FontName } from './metrics.ts';
import { toWinAnsi } from './winansi.ts';

// Breaking spaces only: no-break spaces (U+00A0, U+2007, U+202F) keep "RD$ 1.234,50" on one line.
const BREAKING_SPACES = /[ \t\f\v\u1680\u2000-\u2006\u2008-\u200a\u205f\u3000]+/;
const LINE_BREAKS = /\r\n|[\r\n\u0085\u2028\u2029]/;
// Widths are sums of integers scaled by size; this absorbs the float error of maxWidth itself
// having been computed with textWidth.
const EPSILON = 1e-6;

/**
 * Splits `text` into lines no wider than `maxWidth` points in `font` at `size`. Lines break at
 * spaces (runs of spaces collapse to one, leading and trailing ones go); a word wider than the
 * line is cut between characters. A line break in the text always starts a new line, and an empty
 * line between two breaks is kept as ''; blank lines at either end are dropped, so blank text gives
 * no lines at all.
 */
export function wrapText(text: string, font: FontName, size: number, maxWidth: number): string[] {
  if (!(Number.isFinite(size) && size > 0)) throw new RangeError(`font size must be a positive number, not ${size}`);
  if (!(Number.isFinite(maxWidth) && maxWidth > 0)) throw new RangeError(`maxWidth must be a positive number, not ${maxWidth}`);
  const normal = text.normalize('NFC').trim();
  if (normal === '') return [];
  const limit = (maxWidth * 1000) / size + EPSILON;
  const space = glyphWidth(0x20, font);
  const lines: string[] = [];

  for (const paragraph of normal.split(LINE_BREAKS)) {
    let line = '';
    let lineUnits = 0;
    const startLine = (word: string, units: number): void => {
      if (units <= limit) {
        line = word;
        lineUnits = units;
        return;
      }
      // Too long for any line: full-width pieces go out now, the remainder starts the next line.
      let piece = '';
      let pieceUnits = 0;
      for (const ch of word) {
        const w = encodedWidth(toWinAnsi(ch), font);
        if (piece !== '' && pieceUnits + w > limit) {
          lines.push(piece);
          piece = '';
          pieceUnits = 0;
        }
        piece += ch;
        pieceUnits += w;
      }
      line = piece;
      lineUnits = pieceUnits;
    };

    for (const word of paragraph.split(BREAKING_SPACES)) {
      if (word === '') continue;
      const units = encodedWidth(toWinAnsi(word), font);
      if (line === '') {
        startLine(word, units);
      } else if (lineUnits + space + units <= limit) {
        line += ` ${word}`;
        lineUnits += space + units;
      } else {
        lines.push(line);
        startLine(word, units);
      }
    }
    lines.push(line);
  }
  return lines;
}
