import { S, type Schema } from '../http/openapi.ts';
import { ECF_TIPOS } from '../ecf/ecf-types.ts';
import { ANNULMENT_ESTADOS } from './queries.ts';
import { RANGE_ESTADOS } from './views.ts';

const ENCF = S.string({ pattern: '^E\\d{12}$' });
const TIPO = S.int({ enum: [...ECF_TIPOS] });
const WHEN = S.string({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' });

export const RANGE_BODY: Schema = {
  ...S.object({
    tipo: TIPO,
    desde: { ...ENCF, description: 'First number, E + the type + 10 digits.' },
    hasta: { ...ENCF, description: 'Last number (not before desde).' },
    fechaVencimiento: S.string({ description: 'dd-MM-yyyy: DGII\'s FechaVencimientoSecuencia, the last day the range may be used. Required for 31, 33, 41, 43–47; refused for 32 and 34, whose sequences do not expire.' }),
  }, ['tipo', 'desde', 'hasta']),
  additionalProperties: false,
};

export const RANGE: Schema = S.object({
  id: S.uuid(),
  tipo: TIPO,
  environment: S.string(),
  desde: ENCF,
  hasta: ENCF,
  fechaVencimiento: S.nullable(S.string({ description: 'dd-MM-yyyy; null for 32 and 34.' })),
  siguiente: S.nullable({ ...ENCF, description: 'The number this range gives next; null unless activa.' }),
  disponibles: S.int({ description: 'Numbers not yet given, used explicitly or annulled.' }),
  estado: S.string({ enum: [...RANGE_ESTADOS], description: 'activa: numbers left and not expired. agotada: none left. vencida: numbers left but past fechaVencimiento (it gives nothing). anulada: none left and its last number is in an accepted annulment.' }),
  createdAt: S.dateTime(),
});

export const ANNULMENT_BODY: Schema = {
  ...S.object({
    tipo: TIPO,
    desde: ENCF,
    hasta: ENCF,
  }),
  additionalProperties: false,
};

export const ANNULMENT: Schema = S.object({
  id: S.uuid(),
  tipo: TIPO,
  environment: S.string(),
  desde: ENCF,
  hasta: ENCF,
  cantidad: S.int({ description: 'How many numbers it annuls (CantidadeNCFAnulados).' }),
  estado: S.string({ enum: [...ANNULMENT_ESTADOS], description: 'recibido (being signed and sent) → aceptado | rechazado (DGII\'s answer) | error (it could not be sent: no certificate, or the retry budget ran out). Only rechazado gives its numbers back.' }),
  dgiiCode: S.nullable(S.string()),
  dgiiMessage: S.nullable(S.string()),
  fechaHoraAnulacion: S.nullable(S.string({ description: 'dd-MM-yyyy HH:mm:ss (GMT-4) as in the signed ANECF; null until signed.' })),
  createdAt: S.dateTime(),
  updatedAt: S.dateTime(),
});

export const ANNULMENT_DETAIL: Schema = {
  allOf: [
    S.ref('Annulment'),
    S.object({ documentos: S.array(S.object({ internalTrackId: S.uuid(), encf: ENCF, estado: S.string() })) }, ['documentos']),
  ],
  description: 'With the documents whose numbers it covers (those in error, anulado once DGII accepts it); the other numbers of desde–hasta were never used.',
};

export const SEQUENCE_LOW_EVENT: Schema = S.object({
  event: S.string({ const: 'sequence.low' }),
  environment: S.string(),
  tipo: TIPO,
  disponibles: S.int({ description: 'Numbers left across the type\'s active ranges.' }),
  umbral: S.int({ description: 'SEQUENCE_LOW_WATERMARK.' }),
  timestamp: WHEN,
});

export const SEQUENCE_EXPIRING_EVENT: Schema = S.object({
  event: S.string({ const: 'sequence.expiring' }),
  environment: S.string(),
  tipo: TIPO,
  id: S.uuid(),
  desde: ENCF,
  hasta: ENCF,
  fechaVencimiento: S.string({ description: 'dd-MM-yyyy' }),
  diasRestantes: S.int(),
  disponibles: S.int(),
  timestamp: WHEN,
});

export const SEQUENCE_SCHEMAS: Record<string, Schema> = {
  RangeBody: RANGE_BODY,
  Range: RANGE,
  AnnulmentBody: ANNULMENT_BODY,
  Annulment: ANNULMENT,
  AnnulmentDetail: ANNULMENT_DETAIL,
  SequenceLowEvent: SEQUENCE_LOW_EVENT,
  SequenceExpiringEvent: SEQUENCE_EXPIRING_EVENT,
};
