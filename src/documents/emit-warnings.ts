import { S, type Schema } from '../http/openapi.ts';

// What an emit answer adds when the document was stored but cannot go far yet: the tenant has
// no valid signing certificate, so its submission will end in `error` (DGII needs a signature)
// until one is uploaded and the document is sent again with POST …/reenviar.

export interface EmitWarning {
  code: 'NO_CERTIFICATE';
  message: string;
}

export const NO_CERTIFICATE_WARNING: EmitWarning = {
  code: 'NO_CERTIFICATE',
  message: 'No hay un certificado de firma válido: el documento quedó guardado, pero no puede firmarse ni enviarse a la DGII y quedará en estado error. Suba el certificado (.p12) en Certificado (POST /api/certificates) y reenvíe el documento (POST /{env}/documentos-ecf/{internalTrackId}/reenviar).',
};

/** The warnings of an emit by this tenant now: none when it can sign. */
export async function emitWarnings(signingReady: ((tenantId: number) => Promise<boolean>) | undefined, tenantId: number): Promise<EmitWarning[]> {
  if (signingReady === undefined || (await signingReady(tenantId))) return [];
  return [NO_CERTIFICATE_WARNING];
}

export const WARNINGS_SCHEMA: Schema = S.array(S.object({
  code: S.string({ enum: ['NO_CERTIFICATE'] }),
  message: S.string({ description: 'In Spanish, for the person who emitted.' }),
}));

/** The success envelope with `warnings` beside `data` (present only when there is one). */
export function envelopeWithWarnings(data: Schema): Schema {
  return {
    type: 'object',
    required: ['success', 'data'],
    properties: {
      success: { const: true },
      data,
      warnings: { ...WARNINGS_SCHEMA, description: 'Present when the document was stored but will not reach DGII as it is: NO_CERTIFICATE, the tenant has no valid signing certificate, so the document ends in error until one is uploaded and the document is resubmitted (POST …/reenviar). It may lag an upload made through another instance by up to a second.' },
    },
  };
}
