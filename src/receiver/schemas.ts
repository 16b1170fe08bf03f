import { S, type Schema } from '../http/openapi.ts';
import { ECF_TIPOS } from '../ecf/ecf-types.ts';

const RECEIVED_SUMMARY: Schema = S.object({
  id: S.uuid(),
  environment: S.string(),
  tipo: S.int({ enum: [...ECF_TIPOS] }),
  encf: S.string(),
  rncEmisor: S.string(),
  razonSocialEmisor: S.string(),
  rncComprador: S.string({ description: 'Always this tenant\'s RNC: other e-CF are acknowledged as not received.' }),
  fechaEmision: S.string({ description: 'dd-MM-yyyy' }),
  montoTotal: S.string({ description: 'Decimal text as the emisor wrote it.' }),
  codigoSeguridad: S.string({ description: 'The first six characters of the e-CF\'s SignatureValue.' }),
  signerTrusted: { ...S.bool(), description: 'True when the certificate that signed the e-CF chains to a certification authority of RECEIVER_TRUSTED_CA_FILE and no CRL lists it. False when it was accepted without that proof (TesteCF and CerteCF with no trust bundle, or a CRL that could not be had there) or was received before signers were checked: the emisor named in the document is then unproven.' },
  receivedAt: S.dateTime(),
  verificacionDgii: {
    ...S.nullable(S.object({
      estado: S.string({ enum: ['pendiente', 'aceptado', 'aceptado_condicional', 'rechazado', 'en_proceso', 'no_encontrado', 'no_disponible', 'error'] }),
      codigo: S.nullable(S.int({ description: 'DGII\'s codigo: 0 No encontrado, 1 Aceptado, 2 Rechazado, 3 En Proceso, 4 Aceptado Condicional.' })),
      consultadoEn: S.nullable(S.dateTime()),
    })),
    description: 'What DGII\'s Consulta Estado (asked as buyer, with the security code) says of this e-CF: pendiente until asked; en_proceso and no_encontrado are asked again with backoff (EXCHANGE_RETRY_*, EXCHANGE_MAX_ATTEMPTS) and stand when the retries are spent; no_disponible with a custom tax authority, and in CerteCF, where DGII publishes no Consulta Estado; error when DGII could not be asked. null for documents received before the check existed. Each final answer is an ecf.received_verification event.',
  },
});

const RECEIVED_DETAIL: Schema = {
  allOf: [
    S.ref('ReceivedDocumentSummary'),
    S.object({
      signerSubject: S.string({ description: 'Subject of the certificate that signed the e-CF.' }),
      document: S.object({ ECF: { type: 'object', description: 'The received XML read back into the same JSON form as emitted documents, FechaHoraFirma included.' } }),
      aprobacionComercial: { ...S.nullable(S.ref('SentApproval')), description: 'This tenant\'s decision as buyer (POST …/aprobacion); null until taken.' },
    }),
  ],
};

const MULTIPART_XML: Schema = {
  type: 'object',
  required: ['xml'],
  properties: { xml: { type: 'string', format: 'binary', description: 'The signed XML document.' } },
};

const RECEIVER_TOKEN: Schema = S.object({
  token: S.string({ description: 'Send as Authorization: Bearer <token> to this receiver (this tenant and environment only).' }),
  expira: S.dateTime(),
  expedido: S.dateTime(),
});

const LEG: Schema = S.object({
  estado: S.string({ enum: ['pendiente', 'enviado', 'no_aplica', 'error'] }),
  detalle: S.nullable(S.string()),
});

const SENT_APPROVAL: Schema = S.object({
  estado: S.string({ enum: ['aprobado', 'rechazado'] }),
  motivo: S.nullable(S.string()),
  emisor: { ...LEG, description: 'The ACECF sent to the emisor\'s receiver (URL from DGII\'s directory).' },
  dgii: { ...LEG, description: 'The ACECF sent to DGII\'s aprobacioncomercial service.' },
  createdAt: S.dateTime(),
  updatedAt: S.dateTime(),
});

const RECEIVER_SETTINGS: Schema = S.object({
  rechazarDesconocidosDgii: { ...S.bool(), description: 'Reject automatically (ACECF Estado 2) a received e-CF that DGII does not know.' },
});

const SENT_APPROVAL_UPDATE_EVENT: Schema = S.object({
  event: S.string({ const: 'ecf.commercial_approval_update' }),
  receivedDocumentId: S.uuid(),
  environment: S.string(),
  encf: S.string(),
  rncEmisor: S.string(),
  leg: S.string({ enum: ['emisor', 'dgii'], description: 'Which leg ended: to the emisor\'s receiver, or to DGII.' }),
  estado: S.string({ enum: ['enviado', 'no_aplica', 'error'] }),
  detalle: S.nullable(S.string()),
  aprobacionComercial: S.ref('SentApproval'),
  timestamp: S.dateTime(),
});

const RECEIVED_VERIFICATION_EVENT: Schema = {
  allOf: [
    S.ref('ReceivedDocumentSummary'),
    S.object({ event: S.string({ const: 'ecf.received_verification' }), timestamp: S.dateTime() }),
  ],
};

export const RECEIVER_SCHEMAS: Record<string, Schema> = {
  ReceiverSettings: RECEIVER_SETTINGS,
  CommercialApprovalUpdateEvent: SENT_APPROVAL_UPDATE_EVENT,
  ReceivedVerificationEvent: RECEIVED_VERIFICATION_EVENT,
  SentApproval: SENT_APPROVAL,
  ReceivedDocumentSummary: RECEIVED_SUMMARY,
  ReceivedDocumentDetail: RECEIVED_DETAIL,
  ReceiverUpload: MULTIPART_XML,
  ReceiverToken: RECEIVER_TOKEN,
};
