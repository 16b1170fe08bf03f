import { validationError } from '../errors.ts';
import { S, envelope } from '../http/openapi.ts';
import { tenantOf, uuidParam } from '../http/params.ts';
import { created, ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import { Input } from '../lib/input.ts';
import { PARSE_TIMEOUT_MS } from './parser-pool.ts';
import type { CertificateStore } from './store.ts';

export interface CertificateRouteDeps {
  certificates: CertificateStore;
}

// A .p12 of a certificate and its chain is a few KiB; base64 adds a third.
export const UPLOAD_BODY_LIMIT = 256 * 1024;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });

/** The file's bytes; line breaks and spaces (as `base64` wraps its output) are ignored. */
function decodeP12(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  const bytes = BASE64.test(compact) && compact.length % 4 !== 1 ? Buffer.from(compact, 'base64') : Buffer.alloc(0);
  if (bytes.length === 0) throw validationError([{ path: 'p12', message: 'must be the .p12/.pfx file encoded in base64' }]);
  return bytes;
}

export function certificateRoutes(deps: CertificateRouteDeps): Route[] {
  const { certificates } = deps;
  return [
    {
      method: 'POST', path: '/api/certificates', auth: 'bearer', rateScope: 'sensitive', body: 'json', bodyLimit: UPLOAD_BODY_LIMIT, extraDeadlineMs: PARSE_TIMEOUT_MS,
      doc: {
        operationId: 'uploadCertificate', tags: ['Certificates'], summary: 'Upload the signing certificate (PKCS#12)',
        description: 'Checks that the file opens with the password, holds a private key matching its certificate, that the key is RSA of at least 2048 bits and that the certificate is valid now. The key and certificate are stored encrypted (AES-256-GCM); the new certificate becomes the one that signs the tenant\'s documents. DGII binds its token to the holder named in the subject (serialNumber, else CN; shown as holderId), which must be the tenant\'s RNC: a certificate of another holder is accepted here, but DGII (and the simulator) refuse the documents it signs. Files protected with RC2/RC4 (old exporters, OpenSSL -legacy) are refused with instructions to re-export them.',
        requestBody: { schema: S.ref('CertificateUpload') },
        responses: {
          '201': { description: 'Stored and active.', schema: envelope(S.ref('Certificate')) },
          '413': ERR(`PAYLOAD_TOO_LARGE: the JSON body exceeds ${UPLOAD_BODY_LIMIT / 1024} KiB (this route's own limit).`),
          '422': ERR('VALIDATION_ERROR: not base64, not a PKCS#12 file, wrong password, unsupported encryption, no private key, or every reason the certificate cannot sign (not RSA, under 2048 bits, key mismatch, expired, not yet valid).'),
          '429': { ...ERR('RATE_LIMITED: the sensitive scope is spent (see RateLimit), or this tenant already has 4 files being read (Retry-After: 5); parses are shared round-robin between tenants.'), headers: { 'Retry-After': { description: 'Seconds to wait.', schema: S.int() } } },
          '503': ERR('SERVICE_UNAVAILABLE: too many uploads of several tenants are waiting to be parsed (Retry-After: 5), the file took over 20 s to parse, the service is shutting down, or the database is unreachable.'),
        },
      },
      handler: async (ctx) => {
        const v = new Input(ctx.body);
        const p12 = v.string('p12', { max: UPLOAD_BODY_LIMIT });
        const password = v.string('password', { min: 0, max: 1024, trim: false });
        v.done();
        return created(await certificates.upload(tenantOf(ctx), decodeP12(p12), password));
      },
    },
    {
      method: 'GET', path: '/api/certificates', auth: 'bearer',
      doc: {
        operationId: 'listCertificates', tags: ['Certificates'], summary: 'List the tenant\'s certificates (never the key)',
        responses: { '200': { description: 'Certificates, newest first; one at most is active.', schema: envelope(S.array(S.ref('Certificate'))) } },
      },
      handler: async (ctx) => ok(await certificates.list(tenantOf(ctx))),
    },
    {
      method: 'DELETE', path: '/api/certificates/{id}', auth: 'bearer',
      doc: {
        operationId: 'deleteCertificate', tags: ['Certificates'], summary: 'Delete a certificate',
        description: 'The key is erased. When it was the active certificate, the most recently uploaded remaining one becomes active (if any).',
        responses: { '200': { description: 'The deleted certificate.', schema: envelope(S.ref('Certificate')) } },
      },
      handler: async (ctx) => ok(await certificates.remove(tenantOf(ctx), uuidParam(ctx, 'id'))),
    },
  ];
}
