import { ESTADO_CODES, type EstadoCode, isEstadoCode } from './paths.ts';

// DGII's JSON answers, narrowed from `unknown`. Readers return null when the shape is not the
// documented one, so the client can tell "DGII said no" from "DGII said something unexpected".
// Field names are DGII's (camelCase, Spanish); numbers sometimes arrive as numeric strings.

/** One entry of `mensajes`; `codigo` normalised to text (DGII sends a number). */
export interface DgiiMessage {
  valor: string;
  codigo: string | null;
}

export interface TokenAnswer {
  token: string;
  /** ISO 8601 instants on DGII's clock. */
  expira: string;
  expedido: string;
}

export interface RecepcionAnswer {
  trackId: string;
}

export interface EstadoAnswer {
  trackId: string | null;
  codigo: EstadoCode;
  estado: string;
  encf: string | null;
  secuenciaUtilizada: boolean | null;
  mensajes: DgiiMessage[];
}

/** One entry of the "Consulta TrackIds" answer: a submission of the eNCF asked about. */
export interface TrackIdEntry {
  trackId: string;
  /** DGII's word on it ("Aceptado", "En Proceso", ...), as sent. */
  estado: string | null;
  /** As DGII wrote it; see parseDgiiDateTime. */
  fechaRecepcion: string | null;
}

/** The RFCE service's synchronous answer: the same verdict fields, no trackId. */
export type RfceAnswer = Omit<EstadoAnswer, 'trackId'>;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function codeText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return nonEmpty(value);
}

/** Property lookup that tolerates other capitals (ASP.NET services sometimes emit PascalCase). */
function field(body: Json, name: string): unknown {
  if (Object.hasOwn(body, name)) return body[name];
  const pascal = name.charAt(0).toUpperCase() + name.slice(1);
  if (Object.hasOwn(body, pascal)) return body[pascal];
  const lower = name.toLowerCase();
  const key = Object.keys(body).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : body[key];
}

function readMessages(value: unknown): DgiiMessage[] {
  if (!Array.isArray(value)) return [];
  const out: DgiiMessage[] = [];
  for (const item of value.slice(0, 100)) {
    if (typeof item === 'string' && item.trim() !== '') out.push({ valor: item.trim(), codigo: null });
    else if (isObject(item)) {
      const valor = text(field(item, 'valor')) ?? '';
      const codigo = codeText(field(item, 'codigo'));
      if (valor !== '' || codigo !== null) out.push({ valor, codigo });
    }
  }
  return out;
}

const BY_ESTADO_TEXT = new Map<string, EstadoCode>(
  Object.entries(ESTADO_CODES).map(([code, name]) => [name.toLowerCase(), Number(code) as EstadoCode]),
);

function readEstadoCode(body: Json): EstadoCode | null {
  const raw = field(body, 'codigo');
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,3}$/.test(raw.trim()) ? Number(raw) : NaN;
  if (isEstadoCode(n)) return n;
  const estado = nonEmpty(field(body, 'estado'));
  return estado === null ? null : (BY_ESTADO_TEXT.get(estado.toLowerCase()) ?? null);
}

export function readTokenAnswer(body: unknown): TokenAnswer | null {
  if (!isObject(body)) return null;
  const token = nonEmpty(field(body, 'token'));
  if (token === null) return null;
  return { token, expira: text(field(body, 'expira')) ?? '', expedido: text(field(body, 'expedido')) ?? '' };
}

/** null when the answer carries no trackId (then DGII's error text is the explanation). */
export function readRecepcionAnswer(body: unknown): RecepcionAnswer | null {
  if (!isObject(body)) return null;
  const trackId = nonEmpty(field(body, 'trackId'));
  return trackId === null ? null : { trackId };
}

export function readEstadoAnswer(body: unknown): EstadoAnswer | null {
  if (!isObject(body)) return null;
  const codigo = readEstadoCode(body);
  if (codigo === null) return null;
  const secuencia = field(body, 'secuenciaUtilizada');
  return {
    trackId: nonEmpty(field(body, 'trackId')),
    codigo,
    estado: nonEmpty(field(body, 'estado')) ?? ESTADO_CODES[codigo],
    encf: nonEmpty(field(body, 'encf')),
    secuenciaUtilizada: typeof secuencia === 'boolean' ? secuencia : null,
    mensajes: readMessages(field(body, 'mensajes')),
  };
}

export function readRfceAnswer(body: unknown): RfceAnswer | null {
  const answer = readEstadoAnswer(body);
  if (answer === null) return null;
  const { trackId: _ignored, ...rest } = answer;
  return rest;
}

const MAX_TRACK_IDS = 1000;

/**
 * The "Consulta TrackIds" answer: a JSON array of `{ trackId, estado, fechaRecepcion }`, in any
 * capitals. `problem` says what is wrong when the answer is not that (not an array, an entry
 * without a trackId), so the error names it.
 */
export function readTrackIdsAnswer(body: unknown): { entries: TrackIdEntry[] } | { problem: string } {
  if (!Array.isArray(body)) return { problem: body === undefined ? 'it is not JSON' : `it is ${body === null ? 'null' : typeof body === 'object' ? 'an object' : `a ${typeof body}`}, not a list` };
  if (body.length > MAX_TRACK_IDS) return { problem: `it lists ${body.length} submissions, more than ${MAX_TRACK_IDS}` };
  const entries: TrackIdEntry[] = [];
  for (const [i, item] of body.entries()) {
    if (!isObject(item)) return { problem: `entry ${i + 1} is not an object` };
    const trackId = nonEmpty(field(item, 'trackId'));
    if (trackId === null) return { problem: `entry ${i + 1} has no trackId` };
    entries.push({ trackId, estado: nonEmpty(field(item, 'estado')), fechaRecepcion: nonEmpty(field(item, 'fechaRecepcion')) });
  }
  return { entries };
}

const MESSAGE_KEYS = ['mensaje', 'message', 'error', 'title', 'detail', 'descripcion'] as const;
const MAX_MESSAGE = 500;

function clip(value: string): string {
  const collapsed = value.replace(/\s+/g, ' ').trim();
  return collapsed.length > MAX_MESSAGE ? `${collapsed.slice(0, MAX_MESSAGE)}…` : collapsed;
}

/**
 * The human-readable explanation in an error answer. DGII's services are not uniform: a
 * bare JSON string, `{ mensaje }`, `{ error, mensaje }`, `{ mensajes: [...] }`, an ASP.NET
 * ProblemDetails, or plain text. null when there is nothing readable.
 */
export function errorText(body: unknown, raw: string): string | null {
  if (typeof body === 'string') return nonEmpty(body) === null ? null : clip(body);
  if (isObject(body)) {
    const mensajes = readMessages(field(body, 'mensajes')).map((m) => m.valor).filter((v) => v !== '');
    if (mensajes.length > 0) return clip(mensajes.join('; '));
    for (const key of MESSAGE_KEYS) {
      const value = nonEmpty(field(body, key));
      if (value !== null) return clip(value);
    }
    const errors = field(body, 'errors');
    if (isObject(errors)) {
      const parts = Object.entries(errors).flatMap(([k, v]) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').map((x) => `${k}: ${x}`) : []));
      if (parts.length > 0) return clip(parts.join('; '));
    }
  }
  if (body === undefined && raw.trim() !== '' && !raw.trimStart().startsWith('<')) return clip(raw);
  return null;
}

/**
 * The "Anulación rangos" answer. DGII documents it as `{ codigo, estado, mensaje }`; libraries
 * that call it read `{ rnc, codigo, nombre, mensajes: [string] }`. Both are read: `estado` (or
 * `nombre`) carries DGII's word ("Aceptado", "Rechazado"), messages come from any of the forms.
 */
export interface AnulacionAnswer {
  codigo: string | null;
  estado: string | null;
  mensajes: string[];
}

export function readAnulacionAnswer(body: unknown): AnulacionAnswer | null {
  if (!isObject(body)) return null;
  const mensajes = readMessages(field(body, 'mensajes')).map((m) => m.valor).filter((v) => v !== '');
  const single = nonEmpty(field(body, 'mensaje'));
  if (single !== null) mensajes.push(single);
  return {
    codigo: codeText(field(body, 'codigo')),
    estado: nonEmpty(field(body, 'estado')) ?? nonEmpty(field(body, 'nombre')),
    mensajes: mensajes.map(clip),
  };
}
