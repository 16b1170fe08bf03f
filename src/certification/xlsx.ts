import { ZipError, ZipReader } from '../lib/zip/read.ts';
import { elementChildren, parseXml, textContent, XmlError, type XmlElement } from '../xml/index.ts';

// A small reader of Excel workbooks (.xlsx, Office Open XML): the ZIP reader of lib/zip and the
// XML parser of xml/, no dependency. It reads what a table of cases needs: each sheet's name and
// its cells as text (shared strings, inline strings, numbers and booleans as written), by row
// and column. Formulas give their cached value; styles, dates as serial numbers and everything
// else are not interpreted. Sizes are bounded by the ZIP reader and the XML limits below.

export interface Sheet {
  name: string;
  /** rows[r][c]: text of the cell in row r, column c (0-based); '' when empty. */
  rows: string[][];
}

export class XlsxError extends Error {
  override name = 'XlsxError';
}

const MAX_ROWS = 5_000;
const MAX_COLUMNS = 2_000;
const XML_LIMITS = { maxBytes: 20 * 1024 * 1024, maxDepth: 20, maxNodes: 2_000_000, maxAttributes: 64 };

function xmlOf(zip: ZipReader, name: string): XmlElement | null {
  const bytes = zip.read(name);
  if (bytes === null) return null;
  try {
    return parseXml(bytes, XML_LIMITS).root;
  } catch (err) {
    throw new XlsxError(`${name} is not readable XML: ${err instanceof XmlError ? err.message : String(err)}`);
  }
}

const child = (el: XmlElement, name: string): XmlElement | undefined => elementChildren(el).find((c) => c.localName === name);
const children = (el: XmlElement, name: string): XmlElement[] => elementChildren(el).filter((c) => c.localName === name);
const attr = (el: XmlElement, localName: string): string | undefined => el.attributes.find((a) => a.localName === localName)?.value;

/** The text of a shared or inline string: its <t>, or the <t> of each rich-text run. */
function stringItem(si: XmlElement): string {
  const t = child(si, 't');
  if (t !== undefined) return textContent(t);
  return children(si, 'r').map((r) => { const rt = child(r, 't'); return rt === undefined ? '' : textContent(rt); }).join('');
}

/**
 * A number cell as Excel shows it: its file keeps the binary double's 17 digits (4674.3500000000004
 * for 4674.35); 15 significant digits, what Excel displays, give back what was typed.
 */
function excelNumber(raw: string): string {
  if (!/^-?\d+\.\d{12,}$/.test(raw)) return raw;
  const n = Number(raw);
  return Number.isFinite(n) ? String(Number(n.toPrecision(15))) : raw;
}

/** 0-based column of a cell reference such as "AB12". */
function columnOf(ref: string): number {
  const m = /^([A-Z]{1,3})\d+$/.exec(ref);
  if (m?.[1] === undefined) throw new XlsxError(`the cell reference ${ref.slice(0, 20)} is not valid`);
  let n = 0;
  for (const ch of m[1]) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function resolveTarget(target: string): string {
  const path = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  const parts: string[] = [];
  for (const p of path.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.' && p !== '') parts.push(p);
  }
  return parts.join('/');
}

export function readXlsx(bytes: Buffer): Sheet[] {
  let zip: ZipReader;
  try {
    zip = new ZipReader(bytes);
  } catch (err) {
    throw new XlsxError(`the file is not a readable .xlsx workbook: ${err instanceof ZipError ? err.message : String(err)}`);
  }
  try {
    const workbook = xmlOf(zip, 'xl/workbook.xml');
    if (workbook === null) throw new XlsxError('the file is not an .xlsx workbook (no xl/workbook.xml)');
    const rels = xmlOf(zip, 'xl/_rels/workbook.xml.rels');
    const targets = new Map<string, string>();
    if (rels !== null) for (const r of children(rels, 'Relationship')) targets.set(attr(r, 'Id') ?? '', attr(r, 'Target') ?? '');
    const sstRoot = xmlOf(zip, 'xl/sharedStrings.xml');
    const shared = sstRoot === null ? [] : children(sstRoot, 'si').map(stringItem);
    const sheetsEl = child(workbook, 'sheets');
    const sheets: Sheet[] = [];
    for (const s of sheetsEl === undefined ? [] : children(sheetsEl, 'sheet')) {
      const name = attr(s, 'name') ?? '';
      const target = targets.get(attr(s, 'id') ?? '');
      if (target === undefined) continue;
      const ws = xmlOf(zip, resolveTarget(target));
      if (ws === null) throw new XlsxError(`the sheet ${name} is missing from the workbook`);
      const data = child(ws, 'sheetData');
      const rows: string[][] = [];
      for (const row of data === undefined ? [] : children(data, 'row')) {
        const r = Number(attr(row, 'r') ?? rows.length + 1) - 1;
        if (!Number.isInteger(r) || r < 0 || r >= MAX_ROWS) throw new XlsxError(`the sheet ${name} has more than ${MAX_ROWS} rows`);
        const cells: string[] = [];
        let next = 0;
        for (const c of children(row, 'c')) {
          const ref = attr(c, 'r');
          const col = ref === undefined ? next : columnOf(ref);
          if (col >= MAX_COLUMNS) throw new XlsxError(`the sheet ${name} has more than ${MAX_COLUMNS} columns`);
          next = col + 1;
          const type = attr(c, 't');
          const v = child(c, 'v');
          let text = '';
          if (type === 'inlineStr') {
            const is = child(c, 'is');
            text = is === undefined ? '' : stringItem(is);
          } else if (v !== undefined) {
            const raw = textContent(v);
            if (type === 's') {
              const s = shared[Number(raw)];
              if (s === undefined) throw new XlsxError(`the cell ${ref ?? ''} of ${name} names a shared string that does not exist`);
              text = s;
            } else if (type === 'b') {
              text = raw === '1' ? 'TRUE' : 'FALSE';
            } else if (type === undefined || type === 'n') {
              text = excelNumber(raw);
            } else {
              text = raw;
            }
          }
          while (cells.length < col) cells.push('');
          cells[col] = text;
        }
        while (rows.length < r) rows.push([]);
        rows[r] = cells;
      }
      sheets.push({ name, rows });
    }
    return sheets;
  } catch (err) {
    if (err instanceof ZipError) throw new XlsxError(`the workbook is damaged: ${err.message}`);
    throw err;
  }
}

/** A CSV text (RFC 4180: commas, double quotes, CRLF or LF) as rows of cells. */
export function readCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  // Spanish spreadsheets export CSV with semicolons: the header line tells which.
  const firstLine = body.slice(0, body.search(/\r|\n/) < 0 ? body.length : body.search(/\r|\n/));
  const sep = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') { cell += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === '') {
      quoted = true;
    } else if (ch === sep) {
      row.push(cell);
      cell = '';
      if (row.length > MAX_COLUMNS) throw new XlsxError(`a row has more than ${MAX_COLUMNS} columns`);
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && body[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      if (rows.length > MAX_ROWS) throw new XlsxError(`the file has more than ${MAX_ROWS} rows`);
      row = [];
      cell = '';
    } else {
      cell += ch;
    }
  }
  if (quoted) throw new XlsxError('a quoted cell is not closed');
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ''));
}
