import { S, type Schema } from '../http/openapi.ts';

// OpenAPI schemas of the certificate endpoints.
export const CERTIFICATE: Schema = S.object({
  id: S.uuid(),
  subject: S.string({ description: 'The subject\'s distinguished name, e.g. "CN=Empresa SRL, serialNumber=131880681".' }),
  issuer: S.string(),
  serialNumber: S.string({ description: 'The certificate\'s serial number (hex).' }),
  holderId: S.nullable(S.string({ description: 'RNC (9 digits) or cédula (11 digits) read from the subject\'s serialNumber or CN; DGII binds its token to it.' })),
  validFrom: S.dateTime(),
  validTo: S.dateTime(),
  fingerprint256: S.string({ description: 'SHA-256 fingerprint of the certificate, colon-separated hex.' }),
  active: S.bool(),
  createdAt: S.dateTime(),
});

export const CERTIFICATE_UPLOAD: Schema = S.object({
  p12: S.string({ description: 'The PKCS#12 file (.p12/.pfx) in base64; line breaks are ignored.', contentEncoding: 'base64' }),
  password: S.string({ description: 'The file\'s password (may be empty).' }),
});

export const CERTIFICATE_SCHEMAS: Record<string, Schema> = { Certificate: CERTIFICATE, CertificateUpload: CERTIFICATE_UPLOAD };
