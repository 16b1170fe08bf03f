import { S, type Schema } from '../http/openapi.ts';
import { ECF_TIPOS } from '../ecf/ecf-types.ts';
import { ESTADO_NAMES, RECEPTOR_ESTADOS } from '../ecf/states.ts';
import { ecfBodySchemas } from './ecf-openapi.ts';
import { EMAIL_SCHEMAS } from './email-schemas.ts';
import { LOGO_SCHEMA } from './logo-routes.ts';

export const ESTADO: Schema = S.string({ enum: ESTADO_NAMES, description: 'recibido → en_proceso → aceptado | aceptado_condicional | rechazado; error when it could not be sent or no verdict came. A document in error goes back to recibido when resubmitted (POST …/reenviar) and becomes anulado (final) when DGII accepts an annulment of its eNCF.' });

export const EMITTED: Schema = S.object({
  internalTrackId: S.uuid(),
  encf: S.string({ pattern: '^E\\d{12}$' }),
  estado: ESTADO,
  tipo: S.int({ enum: [...ECF_TIPOS] }),
  environment: S.string(),
  fechaEmision: S.string({ description: 'dd-MM-yyyy' }),
  montoTotal: S.string({ description: 'Decimal text, e.g. "1180.00".' }),
  referencia: S.nullable(S.string({ description: 'The emit body\'s `referencia` (the ERP\'s own id).' })),
  metadata: S.nullable({ type: 'object', additionalProperties: { type: 'string' }, description: 'The emit body\'s `metadata`.' }),
  createdAt: S.dateTime(),
});

const RECEPTOR: Schema = S.object({
  estado: S.string({ enum: [...RECEPTOR_ESTADOS], description: 'The buyer leg: the e-CF is delivered to the buyer\'s receiver (its URLs from DGII\'s directory) after DGII\'s verdict of aceptado or aceptado_condicional, never before: only an accepted e-CF has fiscal validity. pendiente until then and while delivering; recibido: the buyer\'s signed ARECF, Estado 0; no_recibido: Estado 1 (motivo is its CodigoMotivoNoRecibido); no_aplica: the type is not sent to another taxpayer (DGII\'s Descripción técnica v1.6: 32, 41, 43, 45, 46, 47), no RNCComprador, DGII did not accept the e-CF (a rejection is announced with an ecf.receptor_update), or the directory does not list the buyer; error: with the reason in detalle (the buyer\'s receiver failed after retries, answered something that is not an ARECF, or an ARECF not signed by the buyer); POST …/receptor/reenviar delivers it again, back to pendiente.' }),
  motivo: S.nullable(S.string({ description: 'CodigoMotivoNoRecibido of an ARECF with Estado 1: 1 especificación, 2 firma, 3 duplicado, 4 RNC comprador.' })),
  detalle: S.nullable(S.string()),
  updatedAt: S.nullable(S.dateTime()),
  receivedAt: S.nullable({ ...S.dateTime(), description: 'When the buyer\'s ARECF was received.' }),
});

const APROBACION: Schema = {
  ...S.nullable(S.object({
    estado: S.string({ enum: ['aprobado', 'rechazado'] }),
    motivo: S.nullable(S.string({ description: 'DetalleMotivoRechazo, with a rejection.' })),
    fecha: S.nullable(S.string({ description: 'FechaHoraAprobacionComercial as the buyer wrote it (dd-MM-yyyy HH:mm:ss).' })),
    signerTrusted: { ...S.bool(), description: 'True when the certificate that signed the ACECF chains to a certification authority of RECEIVER_TRUSTED_CA_FILE and no CRL lists it; false when it was accepted without that proof (TesteCF and CerteCF without a trust bundle, or a CRL that could not be had there): the buyer named in it is then unproven. A trusted approval that arrives later replaces an untrusted one (a new ecf.commercial_approval event).' },
  })),
  description: 'The buyer\'s commercial approval (its ACECF, received at this tenant\'s receiver); null until it arrives.',
};

export const DOCUMENT_SUMMARY: Schema = S.object({
  internalTrackId: S.uuid(),
  environment: S.string(),
  tipo: S.int(),
  encf: S.string(),
  estado: ESTADO,
  rncEmisor: S.string(),
  rncComprador: S.nullable(S.string()),
  razonSocialComprador: S.nullable(S.string({ description: 'The buyer\'s name (Comprador.RazonSocialComprador of the e-CF), null when the e-CF names none.' })),
  fechaEmision: S.string({ description: 'dd-MM-yyyy' }),
  montoTotal: S.string(),
  trackId: S.nullable(S.string({ description: 'Tracking id the tax authority assigned.' })),
  dgiiCode: S.nullable(S.string({ description: 'The authority\'s message code (0 with acceptance).' })),
  dgiiMessage: S.nullable(S.string()),
  secuenciaUtilizada: S.nullable({ type: 'boolean', description: 'DGII\'s secuenciaUtilizada with its verdict: whether the eNCF counts as used. false (a rejection DGII says did not use the number) frees the eNCF: emit a new document with it, or annul it (POST /{env}/anulaciones). null until DGII says.' }),
  securityCode: S.nullable(S.string({ description: 'CodigoSeguridad: the first 6 characters of the signature value; null until the document is signed (right before its first submission).' })),
  timbreUrl: S.nullable(S.string({ format: 'uri', description: 'DGII\'s verification URL (ConsultaTimbre, or ConsultaTimbreFC for a type 32 sent as RFCE), printed as a QR code; null until signed.' })),
  fechaHoraFirma: S.nullable(S.string({ description: 'dd-MM-yyyy HH:mm:ss (GMT-4) as in the signed XML; null until signed.' })),
  referencia: S.nullable(S.string({ description: 'The ERP\'s own id sent as `referencia` when the document was emitted; not part of the e-CF.' })),
  metadata: S.nullable({ type: 'object', additionalProperties: { type: 'string' }, description: 'The `metadata` sent when the document was emitted; not part of the e-CF.' }),
  createdAt: S.dateTime(),
  updatedAt: S.dateTime(),
  receptor: RECEPTOR,
  aprobacionComercial: APROBACION,
});

export const DOCUMENT_DETAIL: Schema = {
  allOf: [
    S.ref('DocumentSummary'),
    S.object({
      history: S.array(S.object({ estado: ESTADO, dgiiCode: S.nullable(S.string()), dgiiMessage: S.nullable(S.string()), trackId: S.nullable(S.string()), detail: S.nullable(S.string()), at: S.dateTime() })),
      document: S.object({
        ECF: {
          description: 'The e-CF as stored: the emitted ECF element as validated, with its assigned eNCF and the range\'s FechaVencimientoSecuencia, in the schema of its type (ECF.Encabezado.IdDoc.TipoeCF selects it). FechaHoraFirma and the signature are in the signed XML (…/xml), not here.',
          anyOf: ECF_TIPOS.map((tipo) => S.ref(`Ecf${tipo}`)),
        },
      }),
      correo: S.ref('DocumentEmail'),
    }),
  ],
};

/** One numbering for every event of a document: status, buyer leg and commercial approval alike. */
const EVENT_SEQUENCE: Schema = S.int({ minimum: 1, description: 'The document\'s event number, the same as X-ECF-Event-Sequence: 1 for its first event, one more for each later one, shared by its ecf.status_update, ecf.receptor_update and ecf.commercial_approval events. Drop an event whose sequence is not above the highest one processed for the document (a retried recibido arriving after aceptado).' });

export const STATUS_UPDATE_EVENT: Schema = S.object({
  event: S.string({ const: 'ecf.status_update' }),
  internalTrackId: S.uuid(),
  encf: S.string(),
  estado: ESTADO,
  dgiiCode: S.nullable(S.string()),
  dgiiMessage: S.nullable(S.string()),
  trackId: S.nullable(S.string()),
  secuenciaUtilizada: S.nullable({ type: 'boolean', description: 'DGII\'s secuenciaUtilizada with its verdict: whether the eNCF counts as used. false (a rejection DGII says did not use the number) frees the eNCF: emit a new document with it, or annul it (POST /{env}/anulaciones). null until DGII says.' }),
  timestamp: S.string({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' }),
  sequence: EVENT_SEQUENCE,
  // An extra key receivers may ignore: only documents emitted with referencia or metadata have it.
  erp: {
    ...S.object({
      referencia: S.nullable(S.string({ minLength: 1, maxLength: 100 })),
      metadata: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 20 },
    }),
    description: 'Only when the document was emitted with `referencia` or `metadata`: both, as stored (metadata {} when only referencia was sent). Receivers may ignore it.',
  },
}, ['event', 'internalTrackId', 'encf', 'estado', 'dgiiCode', 'dgiiMessage', 'trackId', 'timestamp', 'sequence']);

const RECEPTOR_UPDATE_EVENT: Schema = S.object({
  event: S.string({ const: 'ecf.receptor_update' }),
  internalTrackId: S.uuid(),
  encf: S.string(),
  environment: S.string(),
  rncComprador: S.nullable(S.string()),
  receptor: RECEPTOR,
  timestamp: S.string({ format: 'date-time' }),
  sequence: EVENT_SEQUENCE,
});

const COMMERCIAL_APPROVAL_EVENT: Schema = S.object({
  event: S.string({ const: 'ecf.commercial_approval' }),
  internalTrackId: S.uuid(),
  encf: S.string(),
  environment: S.string(),
  rncComprador: S.string(),
  aprobacionComercial: APROBACION,
  timestamp: S.string({ format: 'date-time' }),
  sequence: EVENT_SEQUENCE,
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
  ReceptorUpdateEvent: RECEPTOR_UPDATE_EVENT,
  CommercialApprovalEvent: COMMERCIAL_APPROVAL_EVENT,
  Statistics: STATISTICS,
  DocumentSummary: DOCUMENT_SUMMARY,
  DocumentDetail: DOCUMENT_DETAIL,
  EmittedDocument: EMITTED,
  ...ecfBodySchemas(),
  StatusUpdateEvent: STATUS_UPDATE_EVENT,
  ...EMAIL_SCHEMAS,
  Logo: LOGO_SCHEMA,
};
