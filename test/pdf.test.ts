import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { A4, LETTER, PdfDocument, ROLL_80MM_WIDTH, roll80mm } from '../src/lib/pdf/index.ts';
import { PdfTools } from './helpers/pdf-tools.ts';

const tools = new PdfTools();
after(() => tools.close());

const body = { font: 'Helvetica', size: 10 } as const;

function assertQpdfAccepts(pdf: Buffer): void {
  const { status, output } = tools.check(pdf);
  assert.equal(status, 0, output);
  assert.match(output, /No syntax or stream encoding errors found/);
}

test('PdfDocument writes a one-page file that qpdf accepts, with a byte-exact xref table', () => {
  const doc = new PdfDocument();
  doc.addPage().text(72, 72, 'Factura', { font: 'Helvetica-Bold', size: 18 });
  const pdf = doc.toBuffer();
  assertQpdfAccepts(pdf);

  const latin1 = pdf.toString('latin1');
  assert.match(latin1, /^%PDF-1\.4\n%[\x80-\xff]{4}\n/);
  assert.ok(latin1.endsWith('%%EOF\n'));
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(latin1)?.[1]);
  assert.equal(latin1.slice(startxref, startxref + 5), 'xref\n');
  const [, first, size] = /^xref\n(\d+) (\d+)\n/.exec(latin1.slice(startxref)) ?? [];
  assert.equal(first, '0');
  const entriesAt = startxref + `xref\n0 ${size}\n`.length;
  assert.equal(latin1.slice(entriesAt, entriesAt + 20), '0000000000 65535 f \n');
  for (let id = 1; id < Number(size); id++) {
    const entry = latin1.slice(entriesAt + 20 * id, entriesAt + 20 * (id + 1));
    assert.match(entry, /^\d{10} 00000 n \n$/);
    const offset = Number(entry.slice(0, 10));
    assert.equal(latin1.slice(offset, offset + `${id} 0 obj\n`.length), `${id} 0 obj\n`, `object ${id}`);
  }
  assert.match(latin1, new RegExp(`trailer\\n<< /Size ${size} /Root 1 0 R /Info \\d+ 0 R >>`));
  assert.match(latin1, /\/BaseFont \/Helvetica \/Encoding \/WinAnsiEncoding/);
  assert.match(latin1, /\/BaseFont \/Helvetica-Bold \/Encoding \/WinAnsiEncoding/);
  assert.match(latin1, /\/Filter \/FlateDecode/);
  assert.doesNotMatch(latin1, /FontFile/);
});

test('PdfDocument writes hundreds of pages of text that qpdf, pdfinfo and pdftotext read', () => {
  const doc = new PdfDocument();
  for (let p = 1; p <= 300; p++) {
    const page = doc.addPage(LETTER.width, LETTER.height);
    for (let line = 0; line < 50; line++) page.text(50, 60 + line * 13, `Página ${p}, línea ${line}: servicio de facturación`, body);
  }
  const pdf = doc.toBuffer();
  assertQpdfAccepts(pdf);
  assert.match(tools.info(pdf), /^Pages:\s+300$/m);
  const last = tools.text(pdf, ['-f', '300', '-l', '300']);
  assert.match(last, /Página 300, línea 0: servicio de facturación/);
  assert.match(last, /Página 300, línea 49: servicio de facturación/);
  assert.doesNotMatch(last, /Página 299/);
});

test('PdfDocument writes Letter, A4 and 80 mm roll pages at their sizes', () => {
  assert.equal(ROLL_80MM_WIDTH, 226.77);
  const doc = new PdfDocument();
  for (const size of [LETTER, A4, roll80mm(600)]) doc.addPage(size.width, size.height).text(10, 20, 'Ticket', body);
  const pdf = doc.toBuffer();
  assertQpdfAccepts(pdf);
  const info = tools.info(pdf, ['-f', '1', '-l', '3']);
  assert.match(info, /Page\s+1 size:\s+612 x 792 pts \(letter\)/);
  assert.match(info, /Page\s+2 size:\s+595\.28 x 841\.89 pts \(A4\)/);
  assert.match(info, /Page\s+3 size:\s+226\.77 x 600 pts/);
});

test('PdfDocument prints Spanish text, cp1252 punctuation and PDF delimiters that pdftotext extracts exactly', () => {
  const lines = [
    'Facturación',
    'Año',
    'ñandú',
    '€ 1.234,50',
    'Teléfono',
    'ÁÉÍÓÚÜÑ áéíóúüñ ¿¡ ºª',
    '‘uno’ “dos” – — • … ™ ‰ † ‡ ‹ › „ ‚ ƒ Š š Ž ž Œ œ Ÿ',
    'Total (RD$ \\ ) ((',
  ];
  const doc = new PdfDocument();
  const page = doc.addPage();
  lines.forEach((line, i) => page.text(50, 60 + i * 20, line, i % 2 === 0 ? body : { font: 'Helvetica-Bold', size: 12 }));
  page.text(50, 400, 'n\u0303andu\u0301 An\u0303o', body); // decomposed: NFC makes them ñ and ú
  const pdf = doc.toBuffer();
  assertQpdfAccepts(pdf);
  const extracted = tools.text(pdf).split('\n');
  for (const line of lines) assert.ok(extracted.includes(line), `${line} not in ${JSON.stringify(extracted)}`);
  assert.ok(extracted.includes('ñandú Año'), JSON.stringify(extracted));
});

test('PdfDocument replaces what WinAnsi cannot encode with ? and still writes a valid file', () => {
  const doc = new PdfDocument();
  const page = doc.addPage();
  const odd = ['emoji a😀b', 'controls [\u0000\u0007]', 'árabe مرحبا', 'hebreo שלום', 'surrogate [\ud800]', 'tab[\t]'];
  odd.forEach((line, i) => page.text(50, 60 + i * 20, line, body));
  const pdf = doc.toBuffer({ title: 'odd 😀 \ud800 \u0000' });
  assertQpdfAccepts(pdf);
  const extracted = tools.text(pdf).split('\n');
  for (const line of ['emoji a?b', 'controls []', 'árabe ?????', 'hebreo ????', 'surrogate [?]', 'tab[ ]']) {
    assert.ok(extracted.includes(line), `${line} not in ${JSON.stringify(extracted)}`);
  }
  assert.match(tools.info(pdf), /^Title:\s+odd 😀 \uFFFD $/m);
});

test('PdfDocument aligns text right and center by its measured width', () => {
  const doc = new PdfDocument();
  const page = doc.addPage();
  page.text(500, 100, 'Derecha', { ...body, align: 'right' });
  page.text(300, 200, 'Centro', { ...body, align: 'center' });
  page.text(100, 300, 'Izquierda', body);
  const boxes = tools.text(doc.toBuffer(), ['-bbox']);
  const box = (word: string): { xMin: number; xMax: number } => {
    const m = new RegExp(`xMin="([\\d.]+)" yMin="[\\d.]+" xMax="([\\d.]+)" yMax="[\\d.]+">${word}<`).exec(boxes);
    assert.ok(m, `${word} in ${boxes}`);
    return { xMin: Number(m[1]), xMax: Number(m[2]) };
  };
  assert.ok(Math.abs(box('Derecha').xMax - 500) < 0.01);
  const centro = box('Centro');
  assert.ok(Math.abs((centro.xMin + centro.xMax) / 2 - 300) < 0.01);
  assert.ok(Math.abs(box('Izquierda').xMin - 100) < 0.01);
});

test('PdfDocument fills rectangles, lines and QR squares that render dark where drawn', () => {
  const doc = new PdfDocument();
  const page = doc.addPage(200, 200);
  page.rect(10, 10, 50, 30, { fill: 0 });
  page.rect(100, 10, 50, 30, { fill: 0.5 });
  page.rect(10, 60, 50, 30, { lineWidth: 2 }); // outline only
  page.line(100, 75, 190, 75, 4);
  const dark = (col: number, row: number): boolean => (col + row) % 2 === 0;
  page.squares(20, 110, 10, dark, 7, 7);
  const pdf = doc.toBuffer();
  assertQpdfAccepts(pdf);
  const img = tools.render(pdf);
  assert.equal(img.width, 200);
  assert.equal(img.height, 200);
  assert.ok(img.pixel(35, 25) < 20, 'black fill, measured from the top');
  assert.ok(img.pixel(35, 185) > 235, 'nothing mirrored at the bottom');
  assert.ok(Math.abs(img.pixel(125, 25) - 128) < 20, 'half-gray fill');
  assert.ok(img.pixel(35, 75) > 235, 'an outline is not filled');
  assert.ok(img.pixel(10, 75) < 60, 'but its edge is drawn');
  assert.ok(img.pixel(150, 75) < 60, 'line');
  for (let row = 0; row < 7; row++) {
    for (let col = 0; col < 7; col++) {
      const v = img.pixel(20 + col * 10 + 5, 110 + row * 10 + 5);
      assert.ok(dark(col, row) ? v < 20 : v > 235, `cell ${col},${row} is ${v}`);
    }
  }
});

test('PdfDocument draws a squares grid as one filled path with a rectangle per dark run', () => {
  const doc = new PdfDocument();
  const page = doc.addPage();
  const rows = ['#######', '#.....#', '##.##.#'];
  page.squares(10, 10, 2, (col, row) => rows[row]?.[col] === '#', 7, 3);
  page.squares(10, 100, 2, () => false, 7, 7); // all light: nothing at all
  const content = page.content();
  assert.equal(content.match(/ re\n/g)?.length, 1 + 2 + 3);
  assert.equal(content.match(/\bf\b/g)?.length, 1);
  assert.match(content, /^q 0 g\n10 780 14 2 re\n/);
});

test('PdfDocument output is the same bytes for the same drawing, with no clock read', () => {
  const build = (): Buffer => {
    const doc = new PdfDocument();
    doc.addPage(A4.width, A4.height).text(20, 20, 'Factura B0100000001', body).rect(20, 30, 100, 1, { fill: 0 });
    return doc.toBuffer({ title: 'Factura', author: 'Empresa' });
  };
  const first = build();
  assert.deepEqual(build(), first);
  assert.doesNotMatch(first.toString('latin1'), /CreationDate|\/ID/);
  const doc = new PdfDocument();
  doc.addPage();
  const dated = doc.toBuffer({ creationDate: new Date(Date.UTC(2025, 2, 4, 5, 6, 7)) });
  assert.match(dated.toString('latin1'), /\/CreationDate \(D:20250304050607Z\)/);
  assert.match(tools.info(dated, ['-isodates']), /^CreationDate:\s+2025-03-04T05:06:07Z$/m);
});

test('PdfDocument escapes document information strings', () => {
  const doc = new PdfDocument();
  doc.addPage();
  const title = 'Factura (B01) \\ ) ( €1.234,50 — ñ';
  const pdf = doc.toBuffer({ title, author: 'Plain (ASCII) \\ author' });
  assertQpdfAccepts(pdf);
  const info = tools.info(pdf);
  assert.ok(info.includes(`Title:           ${title}\n`), info);
  assert.ok(info.includes('Author:          Plain (ASCII) \\ author\n'), info);
  assert.match(info, /^Producer:\s+ecf-service$/m);
});

test('PdfDocument rejects numbers, sizes and grids it cannot write', () => {
  const doc = new PdfDocument();
  assert.throws(() => doc.toBuffer(), RangeError);
  assert.throws(() => doc.addPage(0, 792), RangeError);
  assert.throws(() => doc.addPage(612, Number.NaN), RangeError);
  assert.throws(() => doc.addPage(20_000, 792), RangeError);
  const page = doc.addPage();
  assert.throws(() => page.text(Number.NaN, 10, 'x', body), RangeError);
  assert.throws(() => page.text(10, 10, 'x', { font: 'Helvetica', size: 0 }), RangeError);
  assert.throws(() => page.rect(0, 0, Infinity, 10, { fill: 0 }), RangeError);
  assert.throws(() => page.rect(0, 0, 10, 10, { fill: 2 }), RangeError);
  assert.throws(() => page.line(0, 0, 1e30, 0), RangeError);
  assert.throws(() => page.squares(0, 0, 1, () => true, 1e5, 1e5), RangeError);
  assert.throws(() => page.squares(0, 0, 1, () => true, 2.5, 3), RangeError);
  assert.throws(() => doc.toBuffer({ creationDate: new Date(Number.NaN) }), RangeError);
  assertQpdfAccepts(doc.toBuffer()); // nothing half-written survives a rejected call
});
