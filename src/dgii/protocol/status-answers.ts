import { ENVIRONMENTS, type Environment } from '../../environments.ts';
import { STATUS_AMBIENTES } from './paths.ts';

// The three answers of DGII's "Estatus Servicios" (Descripción Técnica v1.6), narrowed from
// `unknown`. Nothing here throws: an answer of another shape is a `problem` the monitor reports
// (the status then stays unknown), and every list is cut at a fixed length so a runaway answer
// cannot grow what the service keeps. Windows are turned into instants here: DGII gives days
// (dd-MM-yyyy) and hours ("9:00 AM") on Santo Domingo's clock, UTC−4 all year.

/** verificarEstado's `estado`: "No Disponible" means the environment is in maintenance. */
export const STATUS_ESTADOS = ['Disponible', 'No Disponible'] as const;
export type StatusEstado = (typeof STATUS_ESTADOS)[number];

/** One line of obtenerEstatus. */
export interface ServiceStatus {
  environment: Environment;
  /** DGII's name of the service ("Recepción", "Consulta Resultado", …), as sent (trimmed, bounded). */
  servicio: string;
  /** DGII's word ("Disponible", …), as sent (trimmed, bounded). */
  estatus: string;
}

/** One published maintenance window, as epoch milliseconds. */
export interface MaintenanceWindow {
  environment: Environment;
  start: number;
  end: number;
}

export type Read<T> = { value: T } | { problem: string };

const MAX_SERVICES = 200;
const MAX_WINDOW_ENTRIES = 50;
const MAX_DAYS_PER_ENTRY = 1000;
const MAX_TEXT = 100;
const DAY_MS = 86_400_000;
const DOMINICAN_OFFSET_MS = 4 * 3_600_000;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A property by its name in any capitals (ASP.NET services sometimes emit PascalCase). */
function field(body: Json, name: string): unknown {
  if (Object.hasOwn(body, name)) return body[name];
  const lower = name.toLowerCase();
  const key = Object.keys(body).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : body[key];
}

function shortText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return t === '' ? null : t.slice(0, MAX_TEXT);
}

/** Letters only, lower case, accents dropped: "Producción" and "produccion" are one name. */
function folded(text: string): string {
  return text.normalize('NFD').replace(/[^A-Za-z]/g, '').toLowerCase();
}

const BY_AMBIENTE = new Map<string, Environment>(ENVIRONMENTS.map((e) => [folded(STATUS_AMBIENTES[e].name), e]));
const BY_CODE = new Map<number, Environment>(ENVIRONMENTS.map((e) => [STATUS_AMBIENTES[e].code, e]));

/** The environment an `ambiente` names (its name in any spelling, or its number), or null. */
export function environmentOfAmbiente(value: unknown): Environment | null {
  if (typeof value === 'number') return BY_CODE.get(value) ?? null;
  if (typeof value !== 'string') return null;
  if (/^\s*\d\s*$/.test(value)) return BY_CODE.get(Number(value)) ?? null;
  return BY_AMBIENTE.get(folded(value)) ?? null;
}

/** obtenerEstatus: a list of { servicio, estatus, ambiente }; lines naming no known ambiente are skipped. */
export function readEstatusAnswer(json: unknown): Read<ServiceStatus[]> {
  if (!Array.isArray(json)) return { problem: 'obtenerestatus did not answer a JSON list' };
  const out: ServiceStatus[] = [];
  for (const item of json.slice(0, MAX_SERVICES)) {
    if (!isObject(item)) continue;
    const environment = environmentOfAmbiente(field(item, 'ambiente'));
    const servicio = shortText(field(item, 'servicio'));
    const estatus = shortText(field(item, 'estatus'));
    if (environment === null || servicio === null || estatus === null) continue;
    out.push({ environment, servicio, estatus });
  }
  if (out.length === 0 && json.length > 0) return { problem: 'obtenerestatus answered a list with no line of the documented shape' };
  return { value: out };
}

/** verificarEstado: { estado: "Disponible" | "No Disponible" }. */
export function readVerificarAnswer(json: unknown): Read<StatusEstado> {
  const estado = isObject(json) ? field(json, 'estado') : undefined;
  if (typeof estado === 'string') {
    const f = folded(estado);
    const known = STATUS_ESTADOS.find((e) => folded(e) === f);
    if (known !== undefined) return { value: known };
  }
  return { problem: 'verificarestado did not answer { "estado": "Disponible" | "No Disponible" }' };
}

/** Seconds after midnight of "9:00 AM", "1:00 PM", "13:00" or with seconds ("9:00:30 AM"); null otherwise. */
export function parseHora(value: unknown): number | null {
  if (typeof value !== 'string' || value.length > 20) return null;
  const m = /^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([AaPp])\.?\s*[Mm]\.?)?\s*$/.exec(value);
  if (m === null) return null;
  let hours = Number(m[1]);
  const minutes = Number(m[2]);
  const seconds = m[3] === undefined ? 0 : Number(m[3]);
  if (minutes > 59 || seconds > 59) return null;
  const half = m[4]?.toLowerCase();
  if (half !== undefined) {
    if (hours < 1 || hours > 12) return null;
    hours = (hours % 12) + (half === 'p' ? 12 : 0);
  } else if (hours > 23) {
    return null;
  }
  return hours * 3600 + minutes * 60 + seconds;
}

/** Midnight in Santo Domingo of "dd-MM-yyyy" (also d-M-yyyy or with slashes), as epoch ms; null when not a real date. */
export function parseDia(value: unknown): number | null {
  if (typeof value !== 'string' || value.length > 20) return null;
  const m = /^\s*(\d{1,2})[-/](\d{1,2})[-/](\d{4})\s*$/.exec(value);
  if (m === null) return null;
  const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = Date.UTC(year, month - 1, day);
  const d = new Date(utc);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return utc + DOMINICAN_OFFSET_MS;
}

/**
 * obtenerVentanasMantenimiento: { ventanaMantenimientos: [{ ambiente, horaInicio, horaFin, dias }] },
 * one window per day listed. A horaFin not after horaInicio ends on the next day. Entries or
 * days that cannot be read are skipped; an answer of which nothing can be read is a problem.
 */
export function readVentanasAnswer(json: unknown): Read<MaintenanceWindow[]> {
  const list = isObject(json) ? field(json, 'ventanaMantenimientos') : undefined;
  if (!Array.isArray(list)) return { problem: 'obtenerventanasmantenimiento did not answer { "ventanaMantenimientos": [...] }' };
  const out: MaintenanceWindow[] = [];
  let unreadable = 0;
  for (const item of list.slice(0, MAX_WINDOW_ENTRIES)) {
    const environment = isObject(item) ? environmentOfAmbiente(field(item, 'ambiente')) : null;
    const from = isObject(item) ? parseHora(field(item, 'horaInicio')) : null;
    const to = isObject(item) ? parseHora(field(item, 'horaFin')) : null;
    const dias = isObject(item) ? field(item, 'dias') : undefined;
    if (environment === null || from === null || to === null || !Array.isArray(dias)) {
      unreadable++;
      continue;
    }
    const length = (to > from ? to - from : to - from + 86_400) * 1000;
    for (const dia of dias.slice(0, MAX_DAYS_PER_ENTRY)) {
      const midnight = parseDia(dia);
      if (midnight === null) continue;
      const start = midnight + from * 1000;
      out.push({ environment, start, end: start + Math.min(length, DAY_MS) });
    }
  }
  if (out.length === 0 && unreadable > 0) return { problem: 'obtenerventanasmantenimiento answered no window of the documented shape' };
  out.sort((a, b) => a.start - b.start);
  return { value: out };
}
