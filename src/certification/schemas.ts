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

export const CERTIFICATION_SCHEMAS: Record<string, Schema> = {
  CertificationStep: STEP,
  CertificationProgress: PROGRESS,
  PortalSignature: SIGNATURE,
};
