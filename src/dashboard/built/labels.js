// Built from src/dashboard/client/labels.ts by `npm run build:dashboard`: edit that file, not this one.
export const ENVIRONMENTS = ['TesteCF', 'CerteCF', 'eCF'];
export const ENVIRONMENT_PURPOSES = {
    TesteCF: 'pruebas',
    CerteCF: 'certificación',
    eCF: 'producción',
};
export function labelOf(table, value) {
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
};
export const RECEPTOR_ESTADOS = {
    pendiente: 'Pendiente',
    recibido: 'Recibido por el comprador',
    no_recibido: 'No recibido por el comprador',
    no_aplica: 'No aplica',
    error: 'Error al entregar',
};
export const CORREO_ESTADOS = {
    pendiente: 'Pendiente de envío',
    enviado: 'Enviado',
    error: 'No se pudo enviar',
};
export const APROBACIONES = { aprobado: 'Aprobada', rechazado: 'Rechazada' };
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
};
export const DELIVERY_STATUSES = {
    pending: { label: 'Pendiente', tone: 'info' },
    delivered: { label: 'Entregada', tone: 'ok' },
    abandoned: { label: 'Abandonada', tone: 'bad' },
};
export const RETRYING = { label: 'Reintentando', tone: 'warn' };
export const DELIVERY_FILTERS = {
    pending: 'Pendientes',
    delivered: 'Entregadas',
    abandoned: 'Abandonadas',
    failed: 'Fallidas',
};
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
};
export const RANGE_ESTADOS = {
    activa: { label: 'Activa', tone: 'ok' },
    agotada: { label: 'Agotada', tone: 'neutral' },
    vencida: { label: 'Vencida', tone: 'warn' },
    anulada: { label: 'Anulada', tone: 'neutral' },
};
export const STEP_ESTADOS = {
    pendiente: { label: 'Pendiente', tone: 'neutral' },
    en_curso: { label: 'En curso', tone: 'info' },
    completado: { label: 'Completado', tone: 'ok' },
    error: { label: 'Error', tone: 'bad' },
};
export const CASE_ESTADOS = {
    pendiente: { label: 'Pendiente', tone: 'neutral' },
    enviado: { label: 'Enviado', tone: 'info' },
    aceptado: { label: 'Aceptado', tone: 'ok' },
    rechazado: { label: 'Rechazado', tone: 'bad' },
};
export const ANNULMENT_ESTADOS = {
    recibido: { label: 'Recibida', tone: 'info' },
    aceptado: { label: 'Aceptada', tone: 'ok' },
    rechazado: { label: 'Rechazada', tone: 'bad' },
    error: { label: 'Error', tone: 'bad' },
};
export const DEFAULT_KEY_NAME = { server: 'Default key', shown: 'Clave inicial' };
export const PAGE_SIZES = [10, 25, 50, 100];
export const PRINT_FORMATS = [
    { value: 'carta', label: 'Carta' },
    { value: 'a4', label: 'A4' },
    { value: 'ticket80', label: 'Ticket 80 mm' },
];
