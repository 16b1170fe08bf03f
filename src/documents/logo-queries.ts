// SQL of the tenant's logo.
import type { Queryable } from '../db/connect.ts';
import type { PdfImage } from '../lib/pdf/index.ts';

export interface LogoRow {
  mediaType: 'image/png' | 'image/jpeg';
  data: Buffer;
  width: number;
  height: number;
  updatedAt: Date;
}

/** The logo as the PDF writer embeds it; undefined without one. */
export async function findLogoImage(sql: Queryable, tenantId: number): Promise<PdfImage | undefined> {
  const [row] = await sql<{ width: number; height: number; pdfColorSpace: PdfImage['colorSpace']; pdfFilter: PdfImage['filter']; pdfData: Buffer; pdfAlpha: Buffer | null }[]>`
    select width, height, pdf_color_space, pdf_filter, pdf_data, pdf_alpha from tenant_logos where tenant_id = ${tenantId}`;
  return row === undefined ? undefined
    : { width: row.width, height: row.height, colorSpace: row.pdfColorSpace, filter: row.pdfFilter, data: row.pdfData, alpha: row.pdfAlpha };
}

export async function findLogo(sql: Queryable, tenantId: number): Promise<LogoRow | undefined> {
  const [row] = await sql<LogoRow[]>`select media_type, data, width, height, updated_at from tenant_logos where tenant_id = ${tenantId}`;
  return row;
}

export async function saveLogo(sql: Queryable, tenantId: number, logo: Omit<LogoRow, 'updatedAt'>, image: PdfImage): Promise<LogoRow> {
  const [row] = await sql<LogoRow[]>`
    insert into tenant_logos (tenant_id, media_type, data, width, height, pdf_color_space, pdf_filter, pdf_data, pdf_alpha, updated_at)
    values (${tenantId}, ${logo.mediaType}, ${logo.data}, ${logo.width}, ${logo.height}, ${image.colorSpace}, ${image.filter}, ${image.data}, ${image.alpha}, now())
    on conflict (tenant_id) do update set media_type = excluded.media_type, data = excluded.data, width = excluded.width, height = excluded.height,
      pdf_color_space = excluded.pdf_color_space, pdf_filter = excluded.pdf_filter, pdf_data = excluded.pdf_data, pdf_alpha = excluded.pdf_alpha, updated_at = now()
    returning media_type, data, width, height, updated_at`;
  return row as LogoRow;
}

export async function deleteLogo(sql: Queryable, tenantId: number): Promise<boolean> {
  const rows = await sql`delete from tenant_logos where tenant_id = ${tenantId} returning tenant_id`;
  return rows.length > 0;
}
