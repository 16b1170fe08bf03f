// What the page calls things, in Spanish, and how each state looks. These mirror the
// service's own tables (a test compares them), since the browser cannot import server code.

export const ENVIRONMENTS = ['TesteCF', 'CerteCF', 'eCF'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const ENVIRONMENT_LABELS: Record<Environment, string> = {
  TesteCF: 'TesteCF (pruebas)',
  CerteCF: 'CerteCF (certificación)',
  eCF: 'eCF (producción)',
};

export type Tone = 'neutral' | 'info' | 'ok' | 'warn' | 'bad';

export const ESTADOS = {
  recibido: { label: 'Recibido', tone: 'info', final: false },
  en_proceso: { label: 'En proceso', tone: 'info', final: false },
  aceptado: { label: 'Aceptado', tone: 'ok', final: true },
  aceptado_condicional: { label: 'Aceptado condicional', tone: 'warn', final: true },
  rechazado: { label: 'Rechazado', tone: 'bad', final: true },
  error: { label: 'Error', tone: 'bad', final: true },
} as const satisfies Record<string, { label: string; tone: Tone; final: boolean }>;

export type Estado = keyof typeof ESTADOS;

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

/** The status filter of the deliveries list: the three states, and `failed` (abandoned, or pending after a failed attempt). */
export const DELIVERY_FILTERS = {
  pending: 'Pendientes',
  delivered: 'Entregadas',
  abandoned: 'Abandonadas',
  failed: 'Fallidas',
} as const;

export const EVENTS = {
  'ecf.status_update': 'Cambio de estado de un e-CF',
  'webhook.test': 'Prueba',
  'ecf.received': 'e-CF recibido',
} as const;

export const PAGE_SIZES = [10, 25, 50, 100] as const;

/** A short Spanish heading for the error codes a person can meet here; the server's message follows it. */
export const ERROR_SUMMARIES: Readonly<Record<string, string>> = {
  NETWORK: 'No se pudo conectar con el servicio.',
  INVALID_CREDENTIALS: 'Correo o contraseña incorrectos.',
  UNAUTHORIZED: 'Debe iniciar sesión.',
  TOKEN_EXPIRED: 'Su sesión expiró.',
  INVALID_TOKEN: 'Su sesión ya no es válida.',
  FORBIDDEN: 'No tiene permiso para esta acción.',
  REGISTRATION_DISABLED: 'El registro público está deshabilitado en este servidor.',
  NOT_FOUND: 'No encontrado.',
  EMAIL_ALREADY_REGISTERED: 'Ya existe una cuenta con este correo.',
  RNC_ALREADY_REGISTERED: 'Ya existe una empresa con este RNC.',
  VALIDATION_ERROR: 'Revise los datos:',
  RATE_LIMITED: 'Demasiadas solicitudes; espere un momento.',
  INTERNAL: 'Error interno del servicio.',
  SERVICE_UNAVAILABLE: 'El servicio no está disponible por el momento.',
};
