// What the page calls things, in Spanish, and how each state looks. These mirror the
// service's own tables (a test compares them), since the browser cannot import server code.

import type { EventKind } from '../../events/outbox.ts';
import type { ReceptorEstado } from '../../ecf/states.ts';

export const ENVIRONMENTS = ['TesteCF', 'CerteCF', 'eCF'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** What each environment is for; the switcher shows the names alone, so it fits a phone's header. */
export const ENVIRONMENT_PURPOSES: Record<Environment, string> = {
  TesteCF: 'pruebas',
  CerteCF: 'certificación',
  eCF: 'producción',
};

export type Tone = 'neutral' | 'info' | 'ok' | 'warn' | 'bad';

/** A value's name in one of these tables (a label, or an entry with one); the value itself when the table lacks it. */
export function labelOf(table: Readonly<Record<string, string | { label: string }>>, value: string): string {
  const entry = table[value];
  return entry === undefined ? value : typeof entry === 'string' ? entry : entry.label;
}

export const ESTADOS = {
  recibido: { label: 'Recibido', tone: 'info', final: false },
  en_proceso: { label: 'En proceso', tone: 'info', final: false },
  aceptado: { label: 'Aceptado', tone: 'ok', final: true },
  aceptado_condicional: { label: 'Aceptado condicional', tone: 'warn', final: true },
  rechazado: { label: 'Rechazado', tone: 'bad', final: true },
  error: { label: 'Error', tone: 'bad', final: true },
  anulado: { label: 'Anulado', tone: 'neutral', final: true },
} as const satisfies Record<string, { label: string; tone: Tone; final: boolean }>;

export type Estado = keyof typeof ESTADOS;

/** The buyer leg of an issued e-CF (`receptor.estado`). */
export const RECEPTOR_ESTADOS = {
  pendiente: 'Pendiente',
  recibido: 'Recibido por el comprador',
  no_recibido: 'No recibido por el comprador',
  no_aplica: 'No aplica',
  error: 'Error al entregar',
} as const satisfies Record<ReceptorEstado, string>;

/** The e-CF e-mailed to its buyer (`correo.estado`). */
export const CORREO_ESTADOS = {
  pendiente: 'Pendiente de envío',
  enviado: 'Enviado',
  error: 'No se pudo enviar',
} as const satisfies Record<'pendiente' | 'enviado' | 'error', string>;

/** The buyer's commercial approval of an issued e-CF (`aprobacionComercial.estado`). */
export const APROBACIONES = { aprobado: 'Aprobada', rechazado: 'Rechazada' } as const;

export const TIPOS = {
  31: 'Crédito Fiscal',
  32: 'Consumo',
  33: 'Nota de Débito',
  34: 'Nota de Crédito',
  41: 'Compras',
  43: 'Gastos Menores',
  44: 'Regímenes Especiales',
  45: 'Gubernamental',
  46: 'Exportaciones',
  47: 'Pagos al Exterior',
} as const satisfies Record<number, string>;

export const DELIVERY_STATUSES = {
  pending: { label: 'Pendiente', tone: 'info' },
  delivered: { label: 'Entregada', tone: 'ok' },
  abandoned: { label: 'Abandonada', tone: 'bad' },
} as const satisfies Record<string, { label: string; tone: Tone }>;

/** How a pending delivery whose attempts have failed so far is shown: it is being retried. */
export const RETRYING = { label: 'Reintentando', tone: 'warn' } as const satisfies { label: string; tone: Tone };

/** The status filter of the deliveries list: the three states, and `failed` (abandoned, or pending after a failed attempt). */
export const DELIVERY_FILTERS = {
  pending: 'Pendientes',
  delivered: 'Entregadas',
  abandoned: 'Abandonadas',
  failed: 'Fallidas',
} as const;

export const EVENTS = {
  'ecf.status_update': 'Cambio de estado de un e-CF',
  'webhook.test': 'Prueba de webhook',
  'ecf.received': 'e-CF recibido',
  'ecf.receptor_update': 'Entrega de un e-CF al comprador',
  'ecf.commercial_approval': 'Aprobación comercial del comprador',
  'ecf.commercial_approval_update': 'Envío de una aprobación comercial propia',
  'ecf.received_verification': 'Verificación con DGII de un e-CF recibido',
  'sequence.low': 'Secuencia por agotarse',
  'sequence.expiring': 'Secuencia por vencer',
  'ecf.email_update': 'Correo de un e-CF al comprador',
} as const satisfies Record<EventKind, string>;

/** The `estado` of an authorised eNCF range (src/sequences/views.ts). */
export const RANGE_ESTADOS = {
  activa: { label: 'Activa', tone: 'ok' },
  agotada: { label: 'Agotada', tone: 'neutral' },
  vencida: { label: 'Vencida', tone: 'warn' },
  anulada: { label: 'Anulada', tone: 'neutral' },
} as const satisfies Record<string, { label: string; tone: Tone }>;

/** The `estado` of a step of DGII's certification portal (src/certification/steps.ts). */
export const STEP_ESTADOS = {
  pendiente: { label: 'Pendiente', tone: 'neutral' },
  en_curso: { label: 'En curso', tone: 'info' },
  completado: { label: 'Completado', tone: 'ok' },
  error: { label: 'Error', tone: 'bad' },
} as const satisfies Record<string, { label: string; tone: Tone }>;

/** The `estado` of a case of DGII's test set (src/certification/test-sets.ts). */
export const CASE_ESTADOS = {
  pendiente: { label: 'Pendiente', tone: 'neutral' },
  enviado: { label: 'Enviado', tone: 'info' },
  aceptado: { label: 'Aceptado', tone: 'ok' },
  rechazado: { label: 'Rechazado', tone: 'bad' },
} as const satisfies Record<string, { label: string; tone: Tone }>;

/** The `estado` of an annulment (ANECF). */
export const ANNULMENT_ESTADOS = {
  recibido: { label: 'Recibida', tone: 'info' },
  aceptado: { label: 'Aceptada', tone: 'ok' },
  rechazado: { label: 'Rechazada', tone: 'bad' },
  error: { label: 'Error', tone: 'bad' },
} as const satisfies Record<string, { label: string; tone: Tone }>;

/** The name the service gives the first API key of a tenant (src/auth/identity.ts), as the page shows it. */
export const DEFAULT_KEY_NAME = { server: 'Default key', shown: 'Clave inicial' } as const;

export const PAGE_SIZES = [10, 25, 50, 100] as const;

/** The printed representation's formats (…/pdf?formato=), as the page names them. */
export const PRINT_FORMATS = [
  { value: 'carta', label: 'Carta' },
  { value: 'a4', label: 'A4' },
  { value: 'ticket80', label: 'Ticket 80 mm' },
] as const;
export type PrintFormat = (typeof PRINT_FORMATS)[number]['value'];
