// DGII's rules that depend on more than the document itself: the calendar day in Santo Domingo,
// the issuer's own RNC, and the e-CF a note modifies. The service checks them before a number
// is spent; the simulator checks them on what it receives (docs/dgii.md, "Rules at emission").
import { compare, formatDec, parseDecimal, sub, type Dec } from '../decimal.ts';
import { dominicanToday, toDgiiDate } from '../encf.ts';
import type { EcfObject, EcfValue, FieldError } from '../types.ts';

const PATHS = {
  fechaEmision: 'ECF.Encabezado.Emisor.FechaEmision',
  vencimiento: 'ECF.Encabezado.IdDoc.FechaVencimientoSecuencia',
  rncComprador: 'ECF.Encabezado.Comprador.RNCComprador',
  ncfModificado: 'ECF.InformacionReferencia.NCFModificado',
  fechaModificado: 'ECF.InformacionReferencia.FechaNCFModificado',
  montoTotal: 'ECF.Encabezado.Totales.MontoTotal',
} as const;

function textAt(ecf: EcfObject, dotted: string): string | undefined {
  let node: EcfValue | undefined = ecf;
  for (const name of dotted.split('.').slice(1)) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as EcfObject)[name];
  }
  return typeof node === 'string' ? node : typeof node === 'number' ? String(node) : undefined;
}

/** dd-MM-yyyy → yyyy-MM-dd (comparable as text); undefined when not a date of that form. */
export function isoOf(dgiiDate: string | undefined): string | undefined {
  const m = dgiiDate === undefined ? null : /^(\d{2})-(\d{2})-(\d{4})$/.exec(dgiiDate);
  return m === null ? undefined : `${m[3]}-${m[2]}-${m[1]}`;
}

export interface EmissionFacts {
  tipo: number;
  /** The tenant's (issuer's) RNC. */
  rncEmisor: string;
  /** Today in Santo Domingo, yyyy-MM-dd. */
  today?: string;
}

/**
 * FechaEmision not after today in Santo Domingo (UTC−4 all year, no daylight saving: between
 * 20:00 and midnight there UTC is already tomorrow); FechaVencimientoSecuencia not before it;
 * no 000000000 buyer (the check digit rule refuses it too) and, in a 31, not the issuer itself.
 */
export function emissionProblems(ecf: EcfObject, facts: EmissionFacts): FieldError[] {
  const today = facts.today ?? dominicanToday();
  const errors: FieldError[] = [];
  const emitted = isoOf(textAt(ecf, PATHS.fechaEmision));
  if (emitted !== undefined && emitted > today) {
    errors.push({ path: PATHS.fechaEmision, message: `must not be after today in Santo Domingo (UTC−4): ${toDgiiDate(today)} or earlier` });
  }
  const expiry = isoOf(textAt(ecf, PATHS.vencimiento));
  if (expiry !== undefined && expiry < today) {
    errors.push({ path: PATHS.vencimiento, message: `must not have passed: the sequence expired on ${toDgiiDate(expiry)}; today in Santo Domingo is ${toDgiiDate(today)} (register a current range with POST /{env}/secuencias)` });
  }
  const buyer = textAt(ecf, PATHS.rncComprador);
  if (facts.tipo === 31 && buyer !== undefined && buyer === facts.rncEmisor) {
    errors.push({ path: PATHS.rncComprador, message: `must not be the issuer's own RNC (${facts.rncEmisor}) in a type 31: a business does not take tax credit from itself` });
  }
  return errors;
}

/** What a note needs to know of the e-CF it modifies, when that e-CF is the issuer's own. */
export interface ModifiedEcf {
  encf: string;
  tipo: number;
  /** yyyy-MM-dd */
  fechaEmision: string;
  rncComprador: string | null;
  montoTotal: string;
}

/**
 * A 33 or 34 against the issuer's own e-CF: FechaNCFModificado is that e-CF's FechaEmision, the
 * note is not dated before it, the buyer is the same, and a 34 does not credit more than the
 * original's MontoTotal minus the credit notes already issued against it (`credited`).
 */
export function noteProblems(note: EcfObject, tipo: number, original: ModifiedEcf, credited: string): FieldError[] {
  const errors: FieldError[] = [];
  const expected = toDgiiDate(original.fechaEmision);
  const given = textAt(note, PATHS.fechaModificado);
  if (given !== undefined && given !== expected) {
    errors.push({ path: PATHS.fechaModificado, message: `must be ${expected}, the FechaEmision of ${original.encf}` });
  }
  const emitted = isoOf(textAt(note, PATHS.fechaEmision));
  if (emitted !== undefined && emitted < original.fechaEmision) {
    errors.push({ path: PATHS.fechaEmision, message: `must not be before ${expected}, the FechaEmision of the modified ${original.encf}` });
  }
  const buyer = textAt(note, PATHS.rncComprador) ?? null;
  if (original.rncComprador !== null && buyer !== original.rncComprador) {
    errors.push({ path: PATHS.rncComprador, message: `must be ${original.rncComprador}, the buyer of ${original.encf}` });
  }
  if (tipo === 34) {
    const total = parseDecimal(textAt(note, PATHS.montoTotal) ?? '');
    const left = remaining(original.montoTotal, credited);
    if (total !== undefined && left !== undefined && compare(total, left) > 0) {
      errors.push({ path: PATHS.montoTotal, message: `must not exceed ${formatDec(left, 2)}: ${original.encf} totals ${original.montoTotal} and credit notes of ${credited} were already issued against it` });
    }
  }
  return errors;
}

function remaining(total: string, credited: string): Dec | undefined {
  const t = parseDecimal(total);
  const c = parseDecimal(credited);
  return t === undefined || c === undefined ? undefined : sub(t, c);
}
