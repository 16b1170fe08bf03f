// The life of a document (`estado`):
//
//   from        to                                            when
//   (new)       recibido                                      stored and queued for submission
//   recibido    en_proceso                                    the authority took it and gave a trackId
//   recibido    aceptado | aceptado_condicional | rechazado   the authority answered at once (RFCE)
//   recibido    error                                         it could not be sent (no valid certificate,
//                                                             refused, or the retry budget ran out)
//   en_proceso  aceptado | aceptado_condicional | rechazado   the status query gave a verdict
//   en_proceso  error                                         no verdict before DGII_POLL_TIMEOUT_MS
//   error       recibido                                      the tenant resubmitted it (POST …/reenviar):
//                                                             same eNCF, signed anew
//   error       anulado                                       DGII accepted an annulment (ANECF) of its eNCF
//
// Final states never change, except `error`, which the tenant moves on by resubmitting or
// annulling the document; `anulado` is final. Each transition writes one history row and one
// ecf.status_update event in the same transaction.
export const ESTADOS = {
  recibido: { final: false, next: ['en_proceso', 'aceptado', 'aceptado_condicional', 'rechazado', 'error'] },
  en_proceso: { final: false, next: ['aceptado', 'aceptado_condicional', 'rechazado', 'error'] },
  aceptado: { final: true, next: [] },
  aceptado_condicional: { final: true, next: [] },
  rechazado: { final: true, next: [] },
  error: { final: true, next: ['recibido', 'anulado'] },
  anulado: { final: true, next: [] },
} as const satisfies Record<string, { final: boolean; next: readonly string[] }>;

export type Estado = keyof typeof ESTADOS;
export const ESTADO_NAMES = Object.keys(ESTADOS) as Estado[];

export function isEstado(v: string): v is Estado {
  return Object.hasOwn(ESTADOS, v);
}

export function canTransition(from: Estado, to: Estado): boolean {
  return (ESTADOS[from].next as readonly string[]).includes(to);
}

/** The verdicts an authority can give. */
export type FinalEstado = 'aceptado' | 'aceptado_condicional' | 'rechazado';

/**
 * The buyer leg of an issued e-CF (`receptor.estado`): its delivery to the buyer's receiver.
 * pendiente → recibido | no_recibido | no_aplica | error; error → pendiente when the tenant
 * delivers it again (POST …/receptor/reenviar).
 */
export const RECEPTOR_ESTADOS = ['pendiente', 'recibido', 'no_recibido', 'no_aplica', 'error'] as const;
export type ReceptorEstado = (typeof RECEPTOR_ESTADOS)[number];
