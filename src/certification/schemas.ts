import { S, type Schema } from '../http/openapi.ts';

const STEP: Schema = S.object({
  numero: S.int(),
  clave: S.string(),
  nombre: S.string(),
  estado: S.string({ enum: ['pendiente', 'en_curso', 'completado', 'error'] }),
  faltante: S.nullable(S.string({ description: 'What is left, in Spanish; null once completado.' })),
  origen: S.string({ enum: ['servicio', 'marcado', 'portal'] }),
  nota: S.nullable(S.string()),
  actualizado: S.nullable(S.dateTime()),
});

const PROGRESS: Schema = S.object({
  pasos: S.array(S.ref('CertificationStep')),
  completados: S.int(),
  total: S.int(),
});

const SIGNATURE: Schema = S.object({
  id: S.uuid(),
  documento: S.string({ enum: ['postulacion'] }),
  descripcion: S.string(),
  referencia: S.nullable(S.string({ description: 'The document\'s own identifier (PostulacionID).' })),
  environment: S.string(),
  firmadoPor: S.object({ userId: S.int(), email: S.nullable(S.string()) }),
  sha256Original: S.string({ description: 'SHA-256 of the document as it was handed in.' }),
  createdAt: S.dateTime(),
});

const TALLY: Schema = S.object({ total: S.int(), aceptados: S.int(), rechazados: S.int(), pendientes: S.int() });

const CASE: Schema = S.object({
  numero: S.int({ description: 'Its place in the set as imported.' }),
  caso: S.string({ description: 'The set\'s CasoPrueba, else the sheet and row.' }),
  clase: S.string({ enum: ['ecf', 'aprobacion'] }),
  tipo: S.nullable(S.int()),
  encf: S.string(),
  fase: S.int({ description: '1 type 32 under RD$250,000 (RFCE), 2 other e-CF, 3 notes, 4 commercial approvals.' }),
  faseNombre: S.string(),
  estado: S.string({ enum: ['pendiente', 'enviado', 'aceptado', 'rechazado'] }),
  detalle: S.nullable(S.string({ description: 'DGII\'s answer, or why the case could not be sent.' })),
  documentId: S.nullable(S.uuid()),
  approvalId: S.nullable(S.uuid()),
  updatedAt: S.dateTime(),
});

const SET: Schema = S.object({
  id: S.uuid(),
  origen: S.string(),
  createdAt: S.dateTime(),
  resumen: S.object({ ecf: TALLY, aprobaciones: TALLY }),
  casos: S.array(CASE),
});

export const CERTIFICATION_SCHEMAS: Record<string, Schema> = {
  CertificationStep: STEP,
  CertificationProgress: PROGRESS,
  PortalSignature: SIGNATURE,
  CertificationSet: SET,
};
