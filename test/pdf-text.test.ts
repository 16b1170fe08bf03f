import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { FONT_NAMES, PdfDocument, glyphWidth, textWidth, toWinAnsi, winAnsiBytes, wrapText } from '../src/lib/pdf/index.ts';
import { PdfTools } from './helpers/pdf-tools.ts';

const tools = new PdfTools();
after(() => tools.close());

// cp1252's 0x80–0x9F block; the five codes it leaves undefined are null here.
const CP1252_HIGH = [...'€\0‚ƒ„…†‡ˆ‰Š‹Œ\0Ž\0\0‘’“”•–—˜™š›œ\0žŸ'].map((ch) => (ch === '\0' ? null : ch));

test('toWinAnsi encodes Latin-1 and every cp1252 extra to its byte', () => {
  assert.deepEqual([...winAnsiBytes('Año ñandú ÿ')], [0x41, 0xf1, 0x6f, 0x20, 0xf1, 0x61, 0x6e, 0x64, 0xfa, 0x20, 0xff]);
  CP1252_HIGH.forEach((ch, i) => {
    if (ch !== null) assert.equal(toWinAnsi(ch), String.fromCharCode(0x80 + i), `U+${ch.codePointAt(0)?.toString(16)}`);
  });
  assert.equal(toWinAnsi('n\u0303'), '\xf1', 'NFC composes n + combining tilde');
  assert.equal(toWinAnsi('1\u202f234\u00a0RD$ \u22125'), '1\xa0234\xa0RD$ -5', 'Intl spacing and minus');
  assert.equal(toWinAnsi('ﬁ１'), 'fi1', 'compatibility forms');
});

test('toWinAnsi turns what it cannot encode into ? and drops controls and invisible marks', () => {
  assert.equal(toWinAnsi('a😀b'), 'a?b');
  assert.equal(toWinAnsi('❤\ufe0f'), '?', 'the variation selector adds no second ?');
  assert.equal(toWinAnsi('\u0000\u0007\u001b\u007f\u0080\u009f'), '');
  assert.equal(toWinAnsi('a\tb\r\nc'), 'a b  c');
  assert.equal(toWinAnsi('\u200eשלום\u200f'), '????');
  assert.equal(toWinAnsi('مرحبا'), '?????');
  assert.equal(toWinAnsi('中文'), '??');
  assert.equal(toWinAnsi('[\ud800]'), '[?]');
  assert.equal(toWinAnsi('[\udc00\ud800]'), '[??]');
  assert.equal(toWinAnsi('co\u00adop\u200b'), 'coop', 'soft hyphen and zero-width space');
  for (const ch of toWinAnsi('\u0000😀\ud800\u0085\u2028 x')) assert.ok(ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) <= 0xff);
});

test('textWidth gives the AFM widths of Helvetica and Helvetica-Bold', () => {
  // H 722, e 556, l 222, l 222, o 556 = 2278 units; at 10 pt that is 22.78 pt.
  assert.ok(Math.abs(textWidth('Hello', 'Helvetica', 10) - 22.78) < 1e-9);
  // Bold: H 722, e 556, l 278, l 278, o 611 = 2445.
  assert.ok(Math.abs(textWidth('Hello', 'Helvetica-Bold', 10) - 24.45) < 1e-9);
  assert.equal(textWidth('€', 'Helvetica', 1000), 556);
  assert.equal(textWidth("'`", 'Helvetica', 1000), 191 + 333, 'quotesingle and grave, not the curly quotes');
  assert.equal(textWidth('a😀', 'Helvetica', 1000), 556 + 556, 'the ? that replaced the emoji');
  assert.equal(textWidth('', 'Helvetica', 10), 0);
});

test("textWidth agrees with poppler's built-in Helvetica metrics for every WinAnsi code", () => {
  const chars: { code: number; ch: string }[] = [];
  for (let code = 0x21; code <= 0xff; code++) {
    const ch = code >= 0x80 && code <= 0x9f ? CP1252_HIGH[code - 0x80] : code === 0x7f || code === 0xa0 || code === 0xad ? null : String.fromCharCode(code);
    if (ch !== null && ch !== undefined) chars.push({ code, ch });
  }
  const doc = new PdfDocument();
  for (const { ch } of chars) {
    const page = doc.addPage(300, 300);
    FONT_NAMES.forEach((font, i) => page.text(20, 130 + i * 130, ch, { font, size: 100 }));
  }
  const pages = tools.text(doc.toBuffer(), ['-bbox']).split('<page ').slice(1);
  assert.equal(pages.length, chars.length);
  pages.forEach((page, p) => {
    const { code, ch } = chars[p] ?? { code: 0, ch: '' };
    const words = [...page.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">/g)];
    assert.equal(words.length, 2, `code ${code.toString(16)}`);
    words.forEach((m, i) => {
      const font = FONT_NAMES[i] ?? 'Helvetica';
      const poppler = (Number(m[2]) - Number(m[1])) * 10; // 100 pt text: 1 pt is 10 units
      assert.ok(Math.abs(poppler - glyphWidth(code, font)) < 0.1, `${ch} (0x${code.toString(16)}) in ${font}: poppler ${poppler}, ours ${glyphWidth(code, font)}`);
      assert.equal(textWidth(ch, font, 1000), glyphWidth(code, font));
    });
  });
});

test('wrapText breaks at spaces and keeps every line within the width', () => {
  const text = 'Servicio de mantenimiento preventivo del sistema de facturación electrónica, incluye soporte remoto';
  const lines = wrapText(text, 'Helvetica', 10, 120);
  assert.ok(lines.length >= 4, JSON.stringify(lines));
  for (const line of lines) assert.ok(textWidth(line, 'Helvetica', 10) <= 120, line);
  assert.equal(lines.join(' '), text);
  // Greedy: the next line's first word would not have fitted on the line before.
  for (let i = 1; i < lines.length; i++) {
    const next = lines[i]?.split(' ')[0] ?? '';
    assert.ok(textWidth(`${lines[i - 1]} ${next}`, 'Helvetica', 10) > 120);
  }
  // A width computed with textWidth fits exactly; runs of spaces collapse.
  assert.deepEqual(wrapText('  Hello   world ', 'Helvetica', 10, textWidth('Hello world', 'Helvetica', 10)), ['Hello world']);
  assert.deepEqual(wrapText('Hello world', 'Helvetica', 10, textWidth('Hello world', 'Helvetica', 10) - 0.01), ['Hello', 'world']);
  // A no-break space joins an amount to its currency.
  assert.deepEqual(wrapText('Total RD$\u00a01.234,50', 'Helvetica', 10, textWidth('RD$\u00a01.234,50', 'Helvetica', 10) + 1), ['Total', 'RD$\u00a01.234,50']);
});

test('wrapText hard-breaks words longer than the width', () => {
  const word = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.repeat(3);
  const lines = wrapText(`Ref: ${word} fin`, 'Helvetica-Bold', 9, 60);
  assert.equal(lines[0], 'Ref:');
  assert.equal(lines.join('').replace('Ref:', '').replace(/ fin$/, ''), word);
  for (const line of lines) assert.ok(textWidth(line, 'Helvetica-Bold', 9) <= 60, line);
  assert.ok(lines.length >= 5, JSON.stringify(lines));
  assert.match(lines.at(-1) ?? '', / fin$/, 'the rest of the word shares its line with what follows');
  // Narrower than one glyph: still one character a line, never an endless loop.
  assert.deepEqual(wrapText('WWW', 'Helvetica', 10, 1), ['W', 'W', 'W']);
  assert.deepEqual(wrapText('😀😀', 'Helvetica', 10, 1), ['😀', '😀'], 'surrogate pairs stay whole');
});

test('wrapText keeps line breaks and gives nothing for blank text', () => {
  assert.deepEqual(wrapText('uno\ndos\r\n\r\ntres\n', 'Helvetica', 10, 500), ['uno', 'dos', '', 'tres']);
  assert.deepEqual(wrapText(' \n\t ', 'Helvetica', 10, 500), []);
  assert.deepEqual(wrapText('', 'Helvetica', 10, 500), []);
  assert.deepEqual(wrapText('n\u0303andu\u0301', 'Helvetica', 10, 500), ['ñandú']);
  assert.throws(() => wrapText('x', 'Helvetica', 10, 0), RangeError);
  assert.throws(() => wrapText('x', 'Helvetica', Number.NaN, 100), RangeError);
});
