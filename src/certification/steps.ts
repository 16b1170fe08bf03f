// The steps of DGII's certification portal (CerteCF), in the portal's order, and how the
// service knows where each stands: from what it did itself (the signed postulación, the test
// sets, the e-CF its receiver got), or, for what happens only in DGII's portal, from what the
// taxpayer marked. A fact the service has wins over a mark.

export const STEP_STATES = ['pendiente', 'en_curso', 'completado', 'error'] as const;
export type StepState = (typeof STEP_STATES)[number];

/** Where a test set's cases stand (test-sets.ts), per kind of case. */
export interface CaseTally { total: number; aceptados: number; rechazados: number; pendientes: number }

export interface ProgressFacts {
  postulacionFirmada: boolean;
  /** The imported test set's e-CF and approval cases; null when none was imported. */
  set: { ecf: CaseTally; aprobaciones: CaseTally } | null;
  /** e-CF the tenant's receiver accepted in this environment. */
  recibidos: number;
  /** The tenant's receiver base URL in this environment (what the portal asks for). */
  receptorUrl: string;
}

export interface StepResult { estado: StepState; faltante: string | null }

interface StepDef {
  clave: string;
  nombre: string;
  /** What is left while the step is not done. */
  faltante: (f: ProgressFacts) => string;
  /** The service's own knowledge of the step; null when only the portal knows. */
  auto?: (f: ProgressFacts) => StepResult | null;
}

function fromSet(t: CaseTally, what: string): StepResult {
  if (t.total === 0) return { estado: 'pendiente', faltante: `El set importado no tiene casos de ${what}` };
  if (t.rechazados > 0) return { estado: 'error', faltante: `${t.rechazados} de ${t.total} casos de ${what} rechazados: corríjalos y vuelva a enviar el set` };
  if (t.aceptados === t.total) return { estado: 'completado', faltante: null };
  return { estado: t.aceptados + t.rechazados > 0 || t.pendientes < t.total ? 'en_curso' : 'pendiente', faltante: `${t.total - t.aceptados} de ${t.total} casos de ${what} por enviar o en espera de DGII` };
}

export const STEPS: readonly StepDef[] = [
  {
    clave: 'postulacion', nombre: 'Registrado: postulación firmada',
    faltante: () => 'Descargue la postulación del portal (Crear Postulación), fírmela con POST /{env}/certificacion/firmar y súbala firmada al portal',
    auto: (f) => (f.postulacionFirmada ? { estado: 'completado', faltante: null } : null),
  },
  {
    clave: 'datos_ecf', nombre: 'Pruebas de datos e-CF',
    faltante: () => 'Importe el set de pruebas de DGII (libro .xlsx o CSV) y envíelo a CerteCF',
    auto: (f) => (f.set === null ? null : fromSet(f.set.ecf, 'e-CF')),
  },
  {
    clave: 'datos_aprobacion_comercial', nombre: 'Pruebas de datos de aprobación comercial',
    faltante: () => 'Envíe las aprobaciones comerciales del set (POST /{env}/aprobaciones-comerciales, o el set importado)',
    auto: (f) => (f.set === null || f.set.aprobaciones.total === 0 ? null : fromSet(f.set.aprobaciones, 'aprobación comercial')),
  },
  { clave: 'simulacion_ecf', nombre: 'Pruebas de simulación e-CF', faltante: () => 'Emita en CerteCF los e-CF de simulación que pide el portal y márquelo cuando DGII lo apruebe' },
  { clave: 'simulacion_ri', nombre: 'Pruebas de simulación de representación impresa', faltante: () => 'Suba al portal los PDF de los e-CF (el ZIP de revisión del set los reúne) y márquelo' },
  { clave: 'validacion_ri', nombre: 'Validación de la representación impresa', faltante: () => 'Espere la revisión de DGII de los PDF y márquelo cuando la apruebe' },
  { clave: 'url_servicios_prueba', nombre: 'URL de servicios de prueba', faltante: (f) => `Registre en el portal la URL de recepción y de aprobación comercial ${f.receptorUrl} y márquelo` },
  { clave: 'inicio_prueba_recepcion', nombre: 'Inicio de la prueba de recepción e-CF', faltante: () => 'Inicie en el portal la prueba de recepción y márquelo' },
  {
    clave: 'recepcion_ecf', nombre: 'Recepción e-CF',
    faltante: (f) => `Espere los e-CF que DGII envía a ${f.receptorUrl}`,
    auto: (f) => (f.recibidos > 0 ? { estado: 'completado', faltante: null } : null),
  },
  { clave: 'inicio_prueba_aprobacion', nombre: 'Inicio de la prueba de recepción de aprobación comercial', faltante: () => 'Inicie en el portal la prueba de aprobación comercial y márquelo' },
  { clave: 'recepcion_aprobacion_comercial', nombre: 'Recepción de aprobación comercial', faltante: () => 'Confirme en el portal las aprobaciones comerciales recibidas y márquelo' },
  { clave: 'url_produccion', nombre: 'URL de servicios de producción', faltante: () => 'Registre en el portal las URL de producción (ambiente eCF) y márquelo' },
  { clave: 'declaracion_jurada', nombre: 'Declaración jurada', faltante: () => 'Firme la declaración jurada en la Oficina Virtual de DGII y márquelo' },
  { clave: 'verificacion_estatus', nombre: 'Verificación de estatus', faltante: () => 'Espere la verificación final de DGII y márquelo' },
  { clave: 'finalizado', nombre: 'Finalizado', faltante: () => 'DGII le habilita como emisor electrónico: márquelo al recibir la notificación' },
];

export const STEP_KEYS = STEPS.map((s) => s.clave);

/** Who knows where the step stands: the service itself, the taxpayer's mark, or only DGII's portal. */
export type StepOrigin = 'servicio' | 'marcado' | 'portal';

export interface StepMark { estado: StepState; nota: string | null; updatedAt: Date }

export function progress(facts: ProgressFacts, marks: ReadonlyMap<string, StepMark>) {
  return STEPS.map((step, i) => {
    const auto = step.auto?.(facts) ?? null;
    const mark = marks.get(step.clave);
    const estado: StepState = auto?.estado ?? mark?.estado ?? 'pendiente';
    return {
      numero: i + 1,
      clave: step.clave,
      nombre: step.nombre,
      estado,
      faltante: estado === 'completado' ? null : (auto?.faltante ?? step.faltante(facts)),
      origen: (auto !== null ? 'servicio' : mark !== undefined ? 'marcado' : 'portal') as StepOrigin,
      nota: auto === null ? (mark?.nota ?? null) : null,
      actualizado: auto === null && mark !== undefined ? mark.updatedAt.toISOString() : null,
    };
  });
}
export type ProgressStep = ReturnType<typeof progress>[number];
