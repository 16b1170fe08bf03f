import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCsv, readXlsx, XlsxError } from '../src/certification/xlsx.ts';

// The workbook reader on a file written by an independent implementation (Python's zipfile,
// the XML by hand as Excel writes it): shared strings with rich-text runs, inline strings,
// numbers as Excel stores them, booleans, sparse cells and rows; and the CSV reader.

const dir = mkdtempSync(join(tmpdir(), 'xlsx-read-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

function workbook(files: Record<string, string>): Buffer {
  const file = join(dir, `w-${Math.random()}.xlsx`);
  const script = `import zipfile, sys, json\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\nfor k, v in json.loads(sys.argv[2]).items(): z.writestr(k, v)\nz.close()`;
  const run = spawnSync('python3', ['-c', script, file, JSON.stringify(files)], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(file);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

test('cells of every kind read as the text Excel shows, by row and column', () => {
  const sheets = readXlsx(workbook({
    'xl/workbook.xml': `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="ECF" sheetId="1" r:id="rId7"/><sheet name="Vacía" sheetId="2" r:id="rId8"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId7" Target="worksheets/hoja1.xml"/><Relationship Id="rId8" Target="/xl/worksheets/hoja2.xml"/></Relationships>`,
    'xl/sharedStrings.xml': `<sst xmlns="${MAIN}"><si><t>TipoeCF</t></si><si><r><t>Nombre</t></r><r><t xml:space="preserve">Item[1]</t></r></si><si><t>Ferretería &amp; Co</t></si></sst>`,
    'xl/worksheets/hoja1.xml': `<worksheet xmlns="${MAIN}"><sheetData>
      <row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="D1" t="inlineStr"><is><t>MontoTotal</t></is></c></row>
      <row r="3"><c r="A3"><v>31</v></c><c r="B3" t="s"><v>2</v></c><c r="C3" t="b"><v>1</v></c><c r="D3"><v>4674.3500000000004</v></c><c r="E3" t="str"><f>A3</f><v>31</v></c></row>
    </sheetData></worksheet>`,
    'xl/worksheets/hoja2.xml': `<worksheet xmlns="${MAIN}"><sheetData/></worksheet>`,
  }));
  assert.deepEqual(sheets.map((s) => s.name), ['ECF', 'Vacía']);
  assert.deepEqual(sheets[0]?.rows, [['TipoeCF', 'NombreItem[1]', '', 'MontoTotal'], [], ['31', 'Ferretería & Co', 'TRUE', '4674.35', '31']]);
  assert.deepEqual(sheets[1]?.rows, []);
});

test('a workbook that is not one, names a missing shared string, or is too wide is refused', () => {
  assert.throws(() => readXlsx(Buffer.from('PK\u0003\u0004 not really')), XlsxError);
  assert.throws(() => readXlsx(workbook({ 'a.txt': 'x' })), /no xl\/workbook.xml/);
  const base = {
    'xl/workbook.xml': `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="S" sheetId="1" r:id="r1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Target="worksheets/s.xml"/></Relationships>`,
  };
  assert.throws(() => readXlsx(workbook({ ...base, 'xl/worksheets/s.xml': `<worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="A1" t="s"><v>5</v></c></row></sheetData></worksheet>` })), /shared string that does not exist/);
  assert.throws(() => readXlsx(workbook({ ...base, 'xl/worksheets/s.xml': `<worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="ZZZ1"><v>1</v></c></row></sheetData></worksheet>` })), /more than 2000 columns/);
  assert.throws(() => readXlsx(workbook({ ...base, 'xl/worksheets/s.xml': `<worksheet xmlns="${MAIN}"><sheetData><row r="999999"><c r="A999999"><v>1</v></c></row></sheetData></worksheet>` })), /more than 5000 rows/);
  assert.throws(() => readXlsx(workbook({ ...base, 'xl/worksheets/s.xml': '<!DOCTYPE x [<!ENTITY a "b">]><worksheet/>' })), /not readable XML/);
});

test('CSV: quotes, doubled quotes, line breaks inside quotes, CRLF, a BOM, and semicolons when the header uses them', () => {
  assert.deepEqual(readCsv('\uFEFFa,b,c\r\n"x, y","di ""hola""","linea\nnueva"\r\n\r\n1,,3'), [['a', 'b', 'c'], ['x, y', 'di "hola"', 'linea\nnueva'], ['1', '', '3']]);
  assert.deepEqual(readCsv('RNCEmisor;eNCF;Motivo\n131880681;E310000000001;precio, cantidad\n'), [['RNCEmisor', 'eNCF', 'Motivo'], ['131880681', 'E310000000001', 'precio, cantidad']]);
  assert.throws(() => readCsv('a,b\n"sin cerrar'), /not closed/);
});
