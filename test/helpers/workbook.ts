import { zipStream } from '../../src/lib/zip/index.ts';
import { escapeText } from '../../src/xml/index.ts';

// DGII-style test-set workbooks for tests: an e-CF body flattened to one row whose columns are
// the elements' names, repeated ones numbered in brackets (NumeroLinea[1]), and .xlsx files
// (Office Open XML) written with the service's own ZIP writer.

type Json = { [key: string]: unknown };

/** The columns of an e-CF body ({ ECF }) as DGII's workbook names them. */
export function flattenEcf(body: { ECF: Json }): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (value: unknown, name: string, path: string, suffix: string): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, name, path, `${suffix}[${i + 1}]`));
      return;
    }
    if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Json)) walk(v, k, `${path}.${k}`, suffix);
      return;
    }
    const column = path.endsWith('DescuentoORecargo.NumeroLinea') ? 'NumeroLineaDoR' : name;
    out[`${column}${suffix}`] = String(value);
  };
  walk(body.ECF, 'ECF', 'ECF', '');
  return out;
}

/** A table from rows of named cells: the header is the union of the names, in first-seen order. */
export function table(rows: readonly Record<string, string>[]): string[][] {
  const headers: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!headers.includes(k)) headers.push(k);
  return [headers, ...rows.map((r) => headers.map((h) => r[h] ?? '#e'))];
}

function columnName(i: number): string {
  let n = i + 1;
  let s = '';
  while (n > 0) {
    const m = (n - 1) % 26;
    s = String.fromCharCode(65 + m) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/** An .xlsx workbook of these sheets: the first sheet's text in shared strings, the others inline. */
export async function xlsx(sheets: readonly { name: string; rows: readonly (readonly string[])[] }[]): Promise<Buffer> {
  const shared: string[] = [];
  const sheetXml = sheets.map((sheet, n) => {
    const rows = sheet.rows.map((row, r) => `<row r="${r + 1}">${row.map((v, c) => {
      const ref = `${columnName(c)}${r + 1}`;
      if (v === '') return '';
      if (/^-?\d+(\.\d+)?$/.test(v) && !/^0\d/.test(v) && v.length < 15) return `<c r="${ref}"><v>${v}</v></c>`;
      if (n === 0) {
        shared.push(v);
        return `<c r="${ref}" t="s"><v>${shared.length - 1}</v></c>`;
      }
      return `<c r="${ref}" t="inlineStr"><is><t>${escapeText(v)}</t></is></c>`;
    }).join('')}</row>`).join('');
    return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`;
  });
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const entries = [
    { name: '[Content_Types].xml', data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>` },
    { name: '_rels/.rels', data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>` },
    { name: 'xl/workbook.xml', data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${main}" xmlns:r="${rel}"><sheets>${sheets.map((s, i) => `<sheet name="${escapeText(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${rel}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}<Relationship Id="rIdS" Type="${rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>` },
    ...sheetXml.map((data, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data })),
  ];
  const sst = `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${main}" count="${shared.length}" uniqueCount="${shared.length}">${shared.map((s) => `<si><t xml:space="preserve">${escapeText(s)}</t></si>`).join('')}</sst>`;
  const chunks: Buffer[] = [];
  const modified = new Date('2026-11-27T10:00:00Z');
  for await (const c of zipStream([...entries, { name: 'xl/sharedStrings.xml', data: sst }].map((e) => ({ ...e, modified })))) chunks.push(c);
  return Buffer.concat(chunks);
}

/** A CSV file of a table (every cell quoted). */
export function csv(rows: readonly (readonly string[])[]): string {
  return rows.map((r) => r.map((c) => `"${c.replace(/"/g, '""')}"`).join(',')).join('\r\n') + '\r\n';
}
