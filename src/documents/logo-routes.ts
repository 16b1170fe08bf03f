// The tenant's logo: upload (the image file as the body), read back, remove.
import { S, envelope } from '../http/openapi.ts';
import { tenantOf } from '../http/params.ts';
import { ok } from '../http/reply.ts';
import { header, type Route } from '../http/types.ts';
import { LOGO_MAX_BYTES, LOGO_MAX_SIDE, type TenantLogos } from './logo.ts';

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });

export const LOGO_SCHEMA = S.object({
  mediaType: S.string({ enum: ['image/png', 'image/jpeg'] }),
  width: S.int({ minimum: 1, description: 'Pixels.' }),
  height: S.int({ minimum: 1, description: 'Pixels.' }),
  bytes: S.int({ minimum: 1 }),
  updatedAt: S.dateTime(),
});

export function logoRoutes(logos: TenantLogos): Route[] {
  return [
    {
      method: 'PUT', path: '/api/logo', auth: 'bearer', rateScope: 'sensitive', body: 'raw', bodyLimit: LOGO_MAX_BYTES,
      doc: {
        operationId: 'putLogo', tags: ['Documents'], summary: 'Upload the logo printed on the tenant\'s e-CF',
        description: `The body is the image file itself, with Content-Type image/png or image/jpeg (at most ${LOGO_MAX_BYTES / 1024} KiB and ${LOGO_MAX_SIDE} pixels a side). It replaces the previous logo and is printed at the top of every e-CF the tenant issues, on carta, a4 and ticket80 (scaled to fit, never enlarged). PNG: any colour type, 1–16 bits, transparency kept; not interlaced. JPEG: baseline or progressive, gray or RGB (not CMYK).`,
        requestBody: { contentType: 'image/png', description: 'The PNG file, or a JPEG sent as image/jpeg.', schema: S.string({ format: 'binary' }) },
        responses: {
          '200': { description: 'Stored.', schema: envelope(S.ref('Logo')) },
          '413': ERR(`PAYLOAD_TOO_LARGE: the file exceeds ${LOGO_MAX_BYTES / 1024} KiB.`),
          '415': ERR('UNSUPPORTED_MEDIA_TYPE: Content-Type is not image/png or image/jpeg.'),
          '422': ERR(`VALIDATION_ERROR: empty, not the declared format, damaged, interlaced PNG, CMYK or arithmetic-coded JPEG, or over ${LOGO_MAX_SIDE} pixels a side; the message says which.`),
        },
      },
      handler: async (ctx) => ok(await logos.put(tenantOf(ctx), header(ctx.headers, 'content-type') ?? null, ctx.rawBody)),
    },
    {
      method: 'GET', path: '/api/logo', auth: 'bearer',
      doc: {
        operationId: 'getLogo', tags: ['Documents'], summary: 'The logo as uploaded',
        responses: { '200': { description: 'The image file as uploaded: image/png, or image/jpeg for a JPEG.', contentType: 'image/png', schema: S.string({ format: 'binary' }) }, '404': ERR('NOT_FOUND: no logo.') },
      },
      handler: async (ctx) => {
        const row = await logos.get(tenantOf(ctx));
        return { status: 200, raw: { data: row.data, contentType: row.mediaType }, headers: { 'cache-control': 'private, no-store' } };
      },
    },
    {
      method: 'DELETE', path: '/api/logo', auth: 'bearer',
      doc: { operationId: 'deleteLogo', tags: ['Documents'], summary: 'Remove the logo: e-CF print without one', responses: { '204': { description: 'Removed.' }, '404': ERR('NOT_FOUND: no logo.') } },
      handler: async (ctx) => {
        await logos.remove(tenantOf(ctx));
        return { status: 204 };
      },
    },
  ];
}
