// A tenant's logo, printed at the top of its e-CF in every format. A PNG or JPEG of at most
// LOGO_MAX_BYTES and LOGO_MAX_SIDE pixels, read with the PDF writer's own image reader when
// uploaded, so a file that is damaged, interlaced, CMYK, arithmetic-coded or too large is refused
// then (422). The image is stored as the PDF embeds it: printing never decodes a PNG.
import type { Sql } from '../db/connect.ts';
import { AppError, notFound } from '../errors.ts';
import { ImageError, readImage, sniffImage } from '../lib/pdf/index.ts';
import { deleteLogo, findLogo, saveLogo, type LogoRow } from './logo-queries.ts';

/** The largest logo file taken: a logo prints a few centimetres wide. */
export const LOGO_MAX_BYTES = 256 * 1024;
/** At most 2,000 pixels a side: 6 cm at over 800 dpi, and a bounded decode at upload. */
export const LOGO_MAX_SIDE = 2000;

const MEDIA_TYPES = { png: 'image/png', jpeg: 'image/jpeg' } as const;

export function logoView(row: LogoRow) {
  return { mediaType: row.mediaType, width: row.width, height: row.height, bytes: row.data.length, updatedAt: row.updatedAt.toISOString() };
}

export class TenantLogos {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** Checks and stores `file` as declared by `contentType`; the 422 names what is wrong. */
  async put(tenantId: number, contentType: string | null, file: Buffer) {
    const declared = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (declared !== 'image/png' && declared !== 'image/jpeg') throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the logo as image/png or image/jpeg');
    if (file.length === 0) throw new AppError('VALIDATION_ERROR', 'The logo file is empty');
    if (file.length > LOGO_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `The logo is larger than ${LOGO_MAX_BYTES / 1024} KiB`);
    const type = sniffImage(file);
    if (type === null || MEDIA_TYPES[type] !== declared) throw new AppError('VALIDATION_ERROR', `The file is not a ${declared === 'image/png' ? 'PNG' : 'JPEG'} image`);
    let image;
    try {
      image = readImage(file);
    } catch (err) {
      if (err instanceof ImageError) throw new AppError('VALIDATION_ERROR', `This logo cannot be used: ${err.message}`);
      throw err;
    }
    if (image.width > LOGO_MAX_SIDE || image.height > LOGO_MAX_SIDE) {
      throw new AppError('VALIDATION_ERROR', `This logo cannot be used: it is ${image.width}×${image.height} pixels; at most ${LOGO_MAX_SIDE} on a side`);
    }
    return logoView(await saveLogo(this.sql, tenantId, { mediaType: declared, data: file, width: image.width, height: image.height }, image));
  }

  async get(tenantId: number): Promise<LogoRow> {
    const row = await findLogo(this.sql, tenantId);
    if (row === undefined) throw notFound('Logo');
    return row;
  }

  async remove(tenantId: number): Promise<void> {
    if (!(await deleteLogo(this.sql, tenantId))) throw notFound('Logo');
  }
}
