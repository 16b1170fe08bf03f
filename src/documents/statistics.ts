import type { Queryable } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { ESTADO_NAMES, type Estado } from '../ecf/states.ts';
import { validationError } from '../errors.ts';
import { countByDayAndEstado, type EstadoDayCount } from './report-queries.ts';

// The overview: documents by estado for today, this month and a chosen range of issue dates,
// per day over the range, the acceptance rate, and the webhook deliveries in trouble. One
// query reads the span covering all three periods; the rest is arithmetic here.

/** Longest range one request may ask for: a year and a day, so a leap year fits. */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
/** Dominican time, UTC−4 all year: "today" is the Dominican calendar day. */
const DR_OFFSET_MS = -4 * 3_600_000;

export type EstadoCounts = Record<Estado, number>;

export interface PeriodCounts {
  desde: string;
  hasta: string;
  total: number;
  byEstado: EstadoCounts;
  /** (aceptado + aceptado_condicional) / every document with a verdict; null with none yet. */
  acceptanceRate: number | null;
}

export interface DeliveryTrouble {
  /** Pending deliveries whose last attempt failed: being retried now. */
  failing: number;
  /** Deliveries created in the range that gave up after every retry. */
  abandoned: number;
}

export interface Statistics {
  today: PeriodCounts;
  month: PeriodCounts;
  range: PeriodCounts & { perDay: { date: string; total: number; byEstado: EstadoCounts }[] };
  /** For the tenant across environments: webhook settings are not per environment. */
  deliveries: DeliveryTrouble;
}

function zero(): EstadoCounts {
  return Object.fromEntries(ESTADO_NAMES.map((e) => [e, 0])) as EstadoCounts;
}

function addDays(iso: string, days: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function period(rows: readonly EstadoDayCount[], desde: string, hasta: string): PeriodCounts {
  const byEstado = zero();
  let total = 0;
  for (const r of rows) {
    if (r.day < desde || r.day > hasta) continue;
    byEstado[r.estado] += r.count;
    total += r.count;
  }
  const accepted = byEstado.aceptado + byEstado.aceptado_condicional;
  const judged = accepted + byEstado.rechazado;
  return { desde, hasta, total, byEstado, acceptanceRate: judged === 0 ? null : Math.round((accepted / judged) * 10_000) / 10_000 };
}

export function dominicanToday(now = Date.now()): string {
  return new Date(now + DR_OFFSET_MS).toISOString().slice(0, 10);
}

/** The range asked for, or the last 30 days; a 422 for a reversed or too long one. */
export function statisticsRange(desde: string | undefined, hasta: string | undefined, today: string): { desde: string; hasta: string } {
  const end = hasta ?? today;
  const start = desde ?? addDays(end, -29);
  const days = (Date.parse(end) - Date.parse(start)) / DAY_MS + 1;
  if (!Number.isFinite(days)) throw validationError([{ path: 'query.desde', message: 'must be a date' }]);
  if (days < 1) throw validationError([{ path: 'query.desde', message: 'must not be after hasta' }]);
  if (days > MAX_RANGE_DAYS) throw validationError([{ path: 'query.hasta', message: `the range may cover at most ${MAX_RANGE_DAYS} days` }]);
  return { desde: start, hasta: end };
}

export async function readStatistics(
  sql: Queryable,
  tenantId: number,
  environment: Environment,
  range: { desde: string; hasta: string },
  today: string,
  deliveries: (tenantId: number, since: string) => Promise<DeliveryTrouble>,
): Promise<Statistics> {
  const monthStart = `${today.slice(0, 8)}01`;
  const from = range.desde < monthStart ? range.desde : monthStart;
  const to = range.hasta > today ? range.hasta : today;
  const [rows, trouble] = await Promise.all([countByDayAndEstado(sql, tenantId, environment, from, to), deliveries(tenantId, range.desde)]);
  const perDay: Statistics['range']['perDay'] = [];
  const index = new Map<string, Statistics['range']['perDay'][number]>();
  // Counted, not only compared: the loop ends after MAX_RANGE_DAYS whatever the strings say.
  for (let d = range.desde, n = 0; d <= range.hasta && n < MAX_RANGE_DAYS; d = addDays(d, 1), n++) {
    const day = { date: d, total: 0, byEstado: zero() };
    perDay.push(day);
    index.set(d, day);
  }
  for (const r of rows) {
    const day = index.get(r.day);
    if (day === undefined) continue;
    day.byEstado[r.estado] += r.count;
    day.total += r.count;
  }
  return {
    today: period(rows, today, today),
    month: period(rows, monthStart, today),
    range: { ...period(rows, range.desde, range.hasta), perDay },
    deliveries: trouble,
  };
}
