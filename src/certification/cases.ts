import { ecfSchema, INPUT_POLICY, isGroup, isEcfTipo, validateEcf, type EcfObject, type EcfTipo, type EcfValue, type SchemaElement } from '../ecf/validation/index.ts';
import { sentAsRfce } from '../ecf/xml/index.ts';
import type { FieldError } from '../errors.ts';
import { readApprovalInput } from '../approvals/service.ts';
import { AppError } from '../errors.ts';

// DGII's test set as rows of a table (a sheet of its workbook, or a CSV file): each row is one
// case. A row with a TipoeCF column is an e-CF: its columns are the XML elements' names, a
// repeated element's occurrences numbered in brackets (NumeroLinea[1], TipoSubDescuento[1][2]),
// as DGII's workbook writes them, and the e-CF's tree is rebuilt from the type's XSD table. A
// row with RNCEmisor, eNCF, Estado and RNCComprador but no TipoeCF is a commercial approval.
// "#e" (DGII's mark for an empty cell) and blank cells are absent elements.

export type CaseClass = 'ecf' | 'aprobacion';

export interface SetCase {
  numero: number;
  /** The set's name for the case (its CasoPrueba column, else sheet and row). */
  caso: string;
  clase: CaseClass;
  tipo: number | null;
  encf: string;
  /**
   * When it goes: 1 the type 32 under RD$250,000 (sent as RFCE), 2 the other e-CF, 3 the debit
   * and credit notes (after the documents they modify are accepted), 4 the commercial approvals.
   */
  fase: number;
  /** The emit body ({ ECF }) or the approval's body. */
  body: Record<string, unknown>;
}

export interface CaseProblem { caso: string; errors: FieldError[] }

const EMPTY = new Set(['', '#e', '#E']);
const MAX_INDEX = 1000;
/** Columns that do not carry the element's own name in DGII's workbook: the path's column base. */
const RENAMED: Readonly<Record<string, string>> = {
  'DescuentosORecargos.DescuentoORecargo.NumeroLinea': 'NumeroLineaDoR',
};

class Row {
  private readonly cells = new Map<string, string>();
  /** Every bracket chain the headers carry, and their prefixes: "[1]", "[1][2]". */
  readonly indexes = new Set<string>();

  constructor(headers: readonly string[], values: readonly string[]) {
    headers.forEach((h, i) => {
      const name = h.trim();
      if (name === '') return;
      const v = (values[i] ?? '').trim();
      // Two columns of one name: the first that has a value counts.
      const key = name.toLowerCase();
      if ((this.cells.get(key) ?? '') === '') this.cells.set(key, EMPTY.has(v) ? '' : v);
      const chain = /((?:\[\d{1,4}\])+)$/.exec(name)?.[1] ?? '';
      for (const m of chain.matchAll(/\]/g)) this.indexes.add(chain.slice(0, (m.index ?? 0) + 1));
    });
  }

  get(name: string): string | undefined {
    const v = this.cells.get(name.toLowerCase());
    return v === undefined || v === '' ? undefined : v;
  }
}

function build(el: SchemaElement, path: string, suffix: string, row: Row): EcfValue | undefined {
  if (!isGroup(el)) return row.get(`${RENAMED[path] ?? el.name}${suffix}`);
  const out: Record<string, EcfValue> = {};
  for (const c of el.children) {
    const childPath = path === '' ? c.name : `${path}.${c.name}`;
    // What the service writes itself when it signs (FechaHoraFirma): the set's value is DGII's example.
    if (INPUT_POLICY[`ECF.${childPath}`]?.kind === 'refused') continue;
    if (c.max > 1) {
      const values: EcfValue[] = [];
      for (let i = 1; i <= Math.min(c.max, MAX_INDEX); i++) {
        const s = `${suffix}[${i}]`;
        if (!row.indexes.has(s)) continue;
        const v = build(c, childPath, s, row);
        if (v !== undefined) values.push(v);
      }
      if (values.length > 0) out[c.name] = values;
    } else {
      const v = build(c, childPath, suffix, row);
      if (v !== undefined) out[c.name] = v;
    }
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The e-CF of a row: the type's XSD tree filled from the columns. */
export function ecfOfRow(tipo: EcfTipo, headers: readonly string[], values: readonly string[]): EcfObject {
  return (build(ecfSchema(tipo).root, '', '', new Row(headers, values)) ?? {}) as EcfObject;
}

const lower = (headers: readonly string[]) => new Set(headers.map((h) => h.trim().toLowerCase()));

export function tableKind(headers: readonly string[]): CaseClass | null {
  const h = lower(headers);
  if (h.has('tipoecf')) return 'ecf';
  if (h.has('rncemisor') && h.has('encf') && h.has('estado') && h.has('rnccomprador')) return 'aprobacion';
  return null;
}

/** The cases of one table (its first non-empty row is the header), validated; numbering continues from `first`. */
export function casesOfTable(table: readonly (readonly string[])[], source: string, first: number, tenantRnc: string): { cases: SetCase[]; problems: CaseProblem[] } | null {
  const start = table.findIndex((r) => r.some((c) => c.trim() !== ''));
  if (start < 0) return null;
  const headers = table[start] as readonly string[];
  const kind = tableKind(headers);
  if (kind === null) return null;
  const cases: SetCase[] = [];
  const problems: CaseProblem[] = [];
  table.slice(start + 1).forEach((values, i) => {
    if (!values.some((c) => !EMPTY.has(c.trim()))) return;
    const row = new Row(headers, values);
    const caso = row.get('CasoPrueba') ?? `${source} fila ${start + i + 2}`;
    const numero = first + cases.length + problems.length;
    if (kind === 'aprobacion') {
      const encf = row.get('eNCF') ?? '';
      const estado = row.get('Estado');
      const body: Record<string, unknown> = {
        rncEmisor: row.get('RNCEmisor'), encf, fechaEmision: row.get('FechaEmision'), montoTotal: row.get('MontoTotal'),
        estado: estado === '1' ? 'aprobado' : estado === '2' ? 'rechazado' : estado,
        ...(row.get('DetalleMotivoRechazo') === undefined ? {} : { motivo: row.get('DetalleMotivoRechazo') }),
      };
      const comprador = row.get('RNCComprador');
      const errors: FieldError[] = [];
      if (comprador !== tenantRnc) errors.push({ path: 'RNCComprador', message: `must be this tenant's RNC (${tenantRnc}): the set's approvals are the taxpayer's own` });
      try {
        readApprovalInput(body);
      } catch (err) {
        if (err instanceof AppError && err.details !== undefined) errors.push(...err.details);
        else throw err;
      }
      if (errors.length > 0) problems.push({ caso, errors });
      else cases.push({ numero, caso, clase: 'aprobacion', tipo: null, encf, fase: 4, body });
      return;
    }
    const tipoText = row.get('TipoeCF') ?? '';
    const tipo = Number(tipoText);
    if (!/^\d{2}$/.test(tipoText) || !isEcfTipo(tipo)) {
      problems.push({ caso, errors: [{ path: 'TipoeCF', message: 'must be an e-CF type (31–47)' }] });
      return;
    }
    const ecf = ecfOfRow(tipo, headers, values);
    const body = { ECF: ecf };
    const result = validateEcf(body);
    const errors = result.ok ? [] : [...result.errors];
    if (result.ok && result.document.RNCEmisor !== tenantRnc) errors.push({ path: 'ECF.Encabezado.Emisor.RNCEmisor', message: `must be this tenant's RNC (${tenantRnc})` });
    if (result.ok && result.document.eNCF === undefined) errors.push({ path: 'ECF.Encabezado.IdDoc.eNCF', message: 'is required: the set prescribes each case\'s eNCF' });
    if (errors.length > 0 || !result.ok || result.document.eNCF === undefined) {
      problems.push({ caso, errors });
      return;
    }
    const fase = tipo === 33 || tipo === 34 ? 3 : sentAsRfce(tipo, result.document.MontoTotal) ? 1 : 2;
    cases.push({ numero, caso, clase: 'ecf', tipo, encf: result.document.eNCF, fase, body });
  });
  return { cases, problems };
}
