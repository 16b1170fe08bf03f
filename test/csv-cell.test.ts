import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvCell } from '../src/documents/export.ts';

// Issue 28, item 14: the CSV export neutralises every start a spreadsheet may read as a formula,
// including those hidden behind whitespace a spreadsheet trims, and the full-width signs.

test('a text cell starting with a formula sign, whitespace, NBSP, a line feed or a full-width sign gets an apostrophe', () => {
  for (const text of ['=1+1', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1', ' =1+1', '\u00a0=1+1', '\n=1+1', '\uff1d1+1', '\uff0b1', '\uff0d1', '\uff20SUM(A1)', '\u2003=1', '\u3000=1']) {
    const cell = csvCell(text);
    const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
    assert.equal(unquoted, `'${text}`, JSON.stringify(text));
  }
});

test('ordinary text and numeric cells are left as they are', () => {
  assert.equal(csvCell('Distribuidora Caribe SRL'), 'Distribuidora Caribe SRL');
  assert.equal(csvCell('Ñame, yuca'), '"Ñame, yuca"');
  assert.equal(csvCell('-1.50', true), '-1.50');
  assert.equal(csvCell(31, true), '31');
  assert.equal(csvCell(null), '');
});
