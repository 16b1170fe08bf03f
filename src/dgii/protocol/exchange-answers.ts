// DGII's answers about other taxpayers and documents: the directory of electronic receivers,
// "Consulta Estado" (an e-CF by its data), the commercial-approval upload and the timbre page.
// Each reader returns null (or a problem) when the shape is not the documented one.

/** One taxpayer's receiver URLs as DGII's directory publishes them. */
export interface DirectoryEntry {
  nombre: string;
  rnc: string;
  /** Base of the receiver: the e-CF goes to {urlRecepcion}/fe/recepcion/api/ecf. */
  urlRecepcion: string;
  /** Base of the commercial approval service: {urlAceptacion}/fe/aprobacioncomercial/api/ecf. */
  urlAceptacion: string;
  /** Base of the authentication service ({urlOpcional}/fe/autenticacion/api/…); null when the directory gives none: the receiver takes uploads without a token (v1.6). */
  urlOpcional: string | null;
}

/** "Consulta Estado": 0 No encontrado, 1 Aceptado, 2 Rechazado (and 4 Aceptado Condicional, 3 En Proceso). */
export interface ConsultaEstadoAnswer {
  codigo: number;
  estado: string;
  rncEmisor: string | null;
  ncfElectronico: string | null;
  montoTotal: string | null;
  fechaEmision: string | null;
  fechaFirma: string | null;
  rncComprador: string | null;
  codigoSeguridad: string | null;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field in any capitals (DGII's ASP.NET services are not consistent). */
function field(body: Json, name: string): unknown {
  const lower = name.toLowerCase();
  const key = Object.keys(body).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : body[key];
}

function text(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function httpUrl(value: unknown): string | null {
  const t = text(value);
  if (t === null) return null;
  try {
    const u = new URL(t);
    return u.protocol === 'http:' || u.protocol === 'https:' ? t.replace(/\/+$/, '') : null;
  } catch {
    return null;
  }
}

const MAX_ENTRIES = 10_000;

/**
 * The directory answer: a list of entries or, as eCF answers for one RNC, a single entry;
 * an empty body or null is an empty list. Entries without an RNC or a usable reception URL are
 * skipped: nothing could be delivered to them.
 */
export function readDirectoryAnswer(body: unknown): { entries: DirectoryEntry[] } | { problem: string } {
  if (body === null || body === undefined || body === '') return { entries: [] };
  const items = Array.isArray(body) ? body : [body];
  if (items.length > MAX_ENTRIES) return { problem: `it lists ${items.length} entries, more than ${MAX_ENTRIES}` };
  const entries: DirectoryEntry[] = [];
  for (const item of items) {
    if (!isObject(item)) return { problem: 'an entry is not an object' };
    const rnc = text(field(item, 'rnc'));
    const urlRecepcion = httpUrl(field(item, 'urlRecepcion'));
    if (rnc === null || urlRecepcion === null) continue;
    entries.push({
      nombre: text(field(item, 'nombre')) ?? '',
      rnc,
      urlRecepcion,
      urlAceptacion: httpUrl(field(item, 'urlAceptacion')) ?? urlRecepcion,
      urlOpcional: httpUrl(field(item, 'urlOpcional')),
    });
  }
  return { entries };
}

const ESTADO_WORDS: Readonly<Record<number, string>> = { 0: 'No encontrado', 1: 'Aceptado', 2: 'Rechazado', 3: 'En Proceso', 4: 'Aceptado Condicional' };

export function readConsultaEstadoAnswer(body: unknown): ConsultaEstadoAnswer | null {
  if (!isObject(body)) return null;
  const raw = text(field(body, 'codigo'));
  const codigo = raw !== null && /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (ESTADO_WORDS[codigo] === undefined) return null;
  return {
    codigo,
    estado: text(field(body, 'estado')) ?? (ESTADO_WORDS[codigo] as string),
    rncEmisor: text(field(body, 'rncEmisor')),
    ncfElectronico: text(field(body, 'ncfElectronico')),
    montoTotal: text(field(body, 'montoTotal')),
    fechaEmision: text(field(body, 'fechaEmision')),
    fechaFirma: text(field(body, 'fechaFirma')),
    rncComprador: text(field(body, 'rncComprador')),
    codigoSeguridad: text(field(body, 'codigoSeguridad')),
  };
}

/** What DGII said about an uploaded ACECF: its code ("01" approved, "02" rejected) and words. */
export interface AprobacionAnswer {
  codigo: string | null;
  estado: string | null;
  mensajes: string[];
}

export function readAprobacionAnswer(body: unknown): AprobacionAnswer | null {
  if (!isObject(body)) return null;
  const list = field(body, 'mensaje') ?? field(body, 'mensajes');
  const mensajes = Array.isArray(list) ? list.map(text).filter((m): m is string => m !== null).slice(0, 20) : [];
  return { codigo: text(field(body, 'codigo')), estado: text(field(body, 'estado')), mensajes };
}

/** The timbre page names the e-CF's status in words; the first of DGII's words found on it, longest first. */
export function readTimbreEstado(page: string): string | null {
  const words = ['Aceptado Condicional', 'No encontrado', 'En Proceso', 'Aceptado', 'Rechazado'];
  const plain = page.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').toLowerCase();
  return words.find((w) => plain.includes(w.toLowerCase())) ?? null;
}
