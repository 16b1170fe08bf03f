import type { Environment } from '../../environments.ts';
import { ecfXmlToObject } from '../../ecf/xml/index.ts';
import { createContext } from '../../ecf/validation/rules/context.ts';
import { FISCAL_RULES } from '../../ecf/validation/rules/fiscal-rules.ts';
import { runRules } from '../../ecf/validation/rules/index.ts';
import { emissionProblems, isoOf, noteProblems, type ModifiedEcf } from '../../ecf/validation/emission-rules.ts';
import { add, formatDec, parseDecimal, ZERO } from '../../ecf/decimal.ts';
import { isEcfTipo } from '../../ecf/ecf-types.ts';
import type { EcfObject } from '../../ecf/types.ts';
import type { XmlDocument } from '../../xml/index.ts';
import { todayInSantoDomingo } from '../verdicts.ts';
import type { SimulatorState, WireMessage } from './state.ts';

// DGII's rules on an e-CF beyond its XSD, as the simulated DGII applies them to what it receives:
// the same rules the service checks before spending a number (src/ecf/validation/fiscal-rules.ts
// and emission-rules.ts), so a client that skipped them meets them over HTTP. A note (33, 34) is
// checked against the modified e-CF when this simulator accepted it; an e-CF it never saw (issued
// elsewhere, or before it started: its state is in memory) is taken on the note's word.

/** The simulator's own message code for these rules (verdicts.ts uses 0–5 and 8, documents.ts 6 and 7). */
export const FISCAL_RULE_CODE = 9;
const MAX_REMEMBERED = 100_000;

interface Remembered extends ModifiedEcf {
  /** MontoTotal of the credit notes accepted against it. */
  credited: string;
  /** FechaHoraFirma as signed, dd-MM-yyyy HH:mm:ss. */
  fechaFirma: string | null;
}

/** The accepted e-CF of each simulator, by environment|RNCEmisor|eNCF; bounded, oldest forgotten first. */
const ledgers = new WeakMap<SimulatorState, Map<string, Remembered>>();

function ledgerOf(state: SimulatorState): Map<string, Remembered> {
  let ledger = ledgers.get(state);
  if (ledger === undefined) ledgers.set(state, (ledger = new Map()));
  return ledger;
}

const key = (environment: Environment, rncEmisor: string, encf: string) => `${environment}|${rncEmisor}|${encf.toUpperCase()}`;

function text(ecf: EcfObject, ...path: string[]): string | undefined {
  let node: unknown = ecf;
  for (const name of path) node = typeof node === 'object' && node !== null && !Array.isArray(node) ? (node as Record<string, unknown>)[name] : undefined;
  return typeof node === 'string' ? node : undefined;
}

export interface FiscalReading {
  ecf: EcfObject;
  tipo: number;
  rncEmisor: string;
  encf: string;
}

/** Reads a schema-valid e-CF; null when it cannot (the schema check has reported why). */
export function readEcf(doc: XmlDocument): FiscalReading | null {
  try {
    const ecf = ecfXmlToObject(doc.root);
    const tipo = Number(text(ecf, 'Encabezado', 'IdDoc', 'TipoeCF'));
    const rncEmisor = text(ecf, 'Encabezado', 'Emisor', 'RNCEmisor');
    const encf = text(ecf, 'Encabezado', 'IdDoc', 'eNCF');
    return rncEmisor === undefined || encf === undefined ? null : { ecf, tipo, rncEmisor, encf };
  } catch {
    return null;
  }
}

/** DGII's rejections of the e-CF under these rules, each as one message; empty when it passes. */
export function fiscalRejections(r: FiscalReading, environment: Environment, state: SimulatorState, now: number): WireMessage[] {
  if (!isEcfTipo(r.tipo)) return [];
  const errors = [
    ...runRules(createContext(r.tipo, r.ecf, new Set()), FISCAL_RULES),
    // A future FechaEmision has its own verdict, with DGII's wording (verdicts.ts).
    ...emissionProblems(r.ecf, { tipo: r.tipo, rncEmisor: r.rncEmisor, today: todayInSantoDomingo(now) }).filter((e) => !e.path.endsWith('.FechaEmision')),
  ];
  const ncf = text(r.ecf, 'InformacionReferencia', 'NCFModificado');
  if ((r.tipo === 33 || r.tipo === 34) && ncf !== undefined) {
    const original = ledgerOf(state).get(key(environment, r.rncEmisor, ncf));
    if (original !== undefined) errors.push(...noteProblems(r.ecf, r.tipo, original, original.credited));
  }
  return errors.map((e) => ({ codigo: FISCAL_RULE_CODE, valor: `Regla de la DGII incumplida: ${e.path} ${e.message}` }));
}

/** Remembers an accepted e-CF, and adds an accepted credit note to what its original was credited. */
export function rememberAccepted(r: FiscalReading, environment: Environment, state: SimulatorState): void {
  const ledger = ledgerOf(state);
  if (ledger.size >= MAX_REMEMBERED) {
    const oldest = ledger.keys().next().value;
    if (oldest !== undefined) ledger.delete(oldest);
  }
  const montoTotal = text(r.ecf, 'Encabezado', 'Totales', 'MontoTotal') ?? '0';
  ledger.set(key(environment, r.rncEmisor, r.encf), {
    encf: r.encf,
    tipo: r.tipo,
    fechaEmision: isoOf(text(r.ecf, 'Encabezado', 'Emisor', 'FechaEmision')) ?? '',
    rncComprador: text(r.ecf, 'Encabezado', 'Comprador', 'RNCComprador') ?? null,
    montoTotal,
    credited: '0',
    fechaFirma: text(r.ecf, 'FechaHoraFirma') ?? null,
  });
  const ncf = text(r.ecf, 'InformacionReferencia', 'NCFModificado');
  const original = r.tipo === 34 && ncf !== undefined ? ledger.get(key(environment, r.rncEmisor, ncf)) : undefined;
  if (original !== undefined) original.credited = formatDec(add(parseDecimal(original.credited) ?? ZERO, parseDecimal(montoTotal) ?? ZERO), 2);
}

/** The timbre's values (the QR's query) that differ from the e-CF this simulator accepted. */
export interface TimbreValues {
  fechaEmision: string | null;
  montoTotal: string | null;
  fechaFirma: string | null;
}

/**
 * Why a timbre does not match the accepted e-CF it names (DGII's ConsultaTimbre shows the e-CF
 * only when MontoTotal and the dates are its own), or null when it does or the e-CF is unknown.
 * Values the link leaves out are not compared.
 */
export function timbreMismatch(state: SimulatorState, environment: Environment, rncEmisor: string, encf: string, values: TimbreValues): string | null {
  const e = ledgerOf(state).get(key(environment, rncEmisor, encf));
  if (e === undefined) return null;
  const amount = values.montoTotal === null ? undefined : parseDecimal(values.montoTotal);
  const own = parseDecimal(e.montoTotal);
  // A value the link leaves out is not compared (older links carried RncEmisor and ENCF only).
  if (values.montoTotal !== null && (amount === undefined || own === undefined || formatDec(amount, 2) !== formatDec(own, 2))) return 'El MontoTotal no corresponde al e-CF';
  if (values.fechaEmision !== null && isoOf(values.fechaEmision) !== e.fechaEmision) return 'La FechaEmision no corresponde al e-CF';
  if (values.fechaFirma !== null && e.fechaFirma !== null && values.fechaFirma !== e.fechaFirma) return 'La FechaFirma no corresponde al e-CF';
  return null;
}
