import { S, type Schema } from '../http/openapi.ts';
import { ECF_TIPOS } from '../ecf/ecf-types.ts';
import { ESTADO_NAMES } from '../ecf/states.ts';

export const ESTADO: Schema = S.string({ enum: ESTADO_NAMES, description: 'recibido → en_proceso → aceptado | aceptado_condicional | rechazado; error when it could not be sent or no verdict came.' });

export const EMITTED: Schema = S.object({
  internalTrackId: S.uuid(),
  encf: S.string({ pattern: '^E\\d{12}$' }),
  estado: ESTADO,
  tipo: S.int({ enum: [...ECF_TIPOS] }),
  environment: S.string(),
  fechaEmision: S.string({ description: 'dd-MM-yyyy' }),
  montoTotal: S.string({ description: 'Decimal text, e.g. "1180.00".' }),
  createdAt: S.dateTime(),
});

export const DOCUMENT_SUMMARY: Schema = S.object({
  internalTrackId: S.uuid(),
  environment: S.string(),
  tipo: S.int(),
  encf: S.string(),
  estado: ESTADO,
  rncEmisor: S.string(),
  rncComprador: S.nullable(S.string()),
  fechaEmision: S.string({ description: 'dd-MM-yyyy' }),
  montoTotal: S.string(),
  trackId: S.nullable(S.string({ description: 'Tracking id the tax authority assigned.' })),
  dgiiCode: S.nullable(S.string({ description: 'The authority\'s message code (0 with acceptance).' })),
  dgiiMessage: S.nullable(S.string()),
  securityCode: S.nullable(S.string({ description: 'CodigoSeguridad: the first 6 characters of the signature value; null until the document is signed (right before its first submission).' })),
  timbreUrl: S.nullable(S.string({ format: 'uri', description: 'DGII\'s verification URL (ConsultaTimbre, or ConsultaTimbreFC for a type 32 sent as RFCE), printed as a QR code; null until signed.' })),
  fechaHoraFirma: S.nullable(S.string({ description: 'dd-MM-yyyy HH:mm:ss (GMT-4) as in the signed XML; null until signed.' })),
  createdAt: S.dateTime(),
  updatedAt: S.dateTime(),
});

export const DOCUMENT_DETAIL: Schema = {
  allOf: [
    S.ref('DocumentSummary'),
    S.object({
      history: S.array(S.object({ estado: ESTADO, dgiiCode: S.nullable(S.string()), dgiiMessage: S.nullable(S.string()), trackId: S.nullable(S.string()), detail: S.nullable(S.string()), at: S.dateTime() })),
      document: S.object({ ECF: { type: 'object', description: 'The e-CF as stored, with the assigned eNCF.' } }),
    }),
  ],
};

export const ECF_BODY: Schema = {
  type: 'object',
  required: ['ECF'],
  additionalProperties: false,
  description: 'The e-CF as JSON mirroring DGII\'s XML: element names unchanged, repeated elements as arrays, amounts as numbers or numeric strings, dates dd-MM-yyyy. eNCF may be omitted: the next number of the tenant\'s sequence for that type and environment is assigned. FechaHoraFirma and the signature are added by the service.',
  properties: {
    ECF: {
      type: 'object',
      required: ['Encabezado', 'DetallesItems'],
      properties: {
        Encabezado: { type: 'object', required: ['Version', 'IdDoc', 'Emisor', 'Totales'], description: 'Version, IdDoc (TipoeCF, eNCF?, ...), Emisor, Comprador, InformacionesAdicionales, Transporte, Totales, OtraMoneda.' },
        DetallesItems: { type: 'object', properties: { Item: { type: 'array', maxItems: 1000, items: { type: 'object' } } } },
        InformacionReferencia: { type: 'object', description: 'Required in types 33 and 34: NCFModificado, FechaNCFModificado, CodigoModificacion.' },
      },
    },
  },
};

export const STATUS_UPDATE_EVENT: Schema = S.object({
  event: S.string({ const: 'ecf.status_update' }),
  internalTrackId: S.uuid(),
  encf: S.string(),
  estado: ESTADO,
  dgiiCode: S.nullable(S.string()),
  dgiiMessage: S.nullable(S.string()),
  trackId: S.nullable(S.string()),
  timestamp: S.string({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' }),
});

const ESTADO_COUNTS: Schema = S.object(Object.fromEntries(ESTADO_NAMES.map((e) => [e, S.int({ minimum: 0 })])));
const PERIOD = {
  desde: S.string({ format: 'date' }),
  hasta: S.string({ format: 'date' }),
  total: S.int({ minimum: 0 }),
  byEstado: ESTADO_COUNTS,
  acceptanceRate: S.nullable({ type: 'number', minimum: 0, maximum: 1, description: '(aceptado + aceptado_condicional) / (those + rechazado), 4 decimals.' }),
};

export const STATISTICS: Schema = S.object({
  today: S.object(PERIOD),
  month: S.object(PERIOD),
  range: S.object({ ...PERIOD, perDay: S.array(S.object({ date: S.string({ format: 'date' }), total: S.int({ minimum: 0 }), byEstado: ESTADO_COUNTS })) }),
  deliveries: S.object({
    failing: S.int({ minimum: 0, description: 'Pending webhook deliveries whose last attempt failed.' }),
    abandoned: S.int({ minimum: 0, description: 'Deliveries created since desde that gave up.' }),
  }),
});

export const DOCUMENT_SCHEMAS: Record<string, Schema> = {
  Statistics: STATISTICS,
  DocumentSummary: DOCUMENT_SUMMARY,
  DocumentDetail: DOCUMENT_DETAIL,
  EmittedDocument: EMITTED,
  EcfBody: ECF_BODY,
  StatusUpdateEvent: STATUS_UPDATE_EVENT,
};
