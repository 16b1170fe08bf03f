import { S, type Schema } from '../http/openapi.ts';

const LEG: Schema = S.object({
  estado: S.string({ enum: ['pendiente', 'enviado', 'no_aplica', 'error'] }),
  detalle: S.nullable(S.string()),
});

const APPROVAL_REQUEST: Schema = S.object({
  id: S.uuid(),
  rncEmisor: S.string(),
  encf: S.string(),
  fechaEmision: S.string({ description: 'yyyy-MM-dd' }),
  montoTotal: S.string({ description: 'Two decimals.' }),
  rncComprador: S.string({ description: 'This tenant\'s RNC.' }),
  estado: S.string({ enum: ['aprobado', 'rechazado'] }),
  motivo: S.nullable(S.string()),
  emisor: { ...LEG, description: 'The ACECF sent to the emisor\'s receiver (URL from DGII\'s directory); no_aplica when the directory does not list the emisor.' },
  dgii: { ...LEG, description: 'The ACECF sent to DGII\'s aprobacioncomercial service, with DGII\'s answer in detalle.' },
  createdAt: S.dateTime(),
  updatedAt: S.dateTime(),
});

const APPROVAL_REQUEST_INPUT: Schema = {
  type: 'object', additionalProperties: false, required: ['rncEmisor', 'encf', 'fechaEmision', 'montoTotal', 'estado'],
  properties: {
    rncEmisor: S.string({ pattern: '^(\\d{9}|\\d{11})$', description: 'The emisor of the e-CF (not this tenant).' }),
    encf: S.string({ pattern: '^E\\d{12}$' }),
    fechaEmision: S.string({ description: 'The e-CF\'s issue date, yyyy-MM-dd or dd-MM-yyyy.' }),
    montoTotal: { oneOf: [S.string({ pattern: '^\\d{1,16}(\\.\\d{1,2})?$' }), { type: 'number', minimum: 0 }], description: 'The e-CF\'s MontoTotal.' },
    estado: S.string({ enum: ['aprobado', 'rechazado'] }),
    motivo: S.string({ minLength: 1, maxLength: 250, description: 'Required with rechazado: DetalleMotivoRechazo.' }),
  },
};

export const APPROVAL_SCHEMAS: Record<string, Schema> = {
  CommercialApprovalRequest: APPROVAL_REQUEST,
  CommercialApprovalRequestInput: APPROVAL_REQUEST_INPUT,
};
