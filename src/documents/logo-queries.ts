// SQL of the tenant's logo.
import type { Queryable } from '../db/connect.ts';

export interface LogoRow {
  mediaType: 'image/png' | 'image/jpeg';
  data: Buffer;
  width: number;
  height: number;
  updatedAt: Date;
}

export async function findLogo(sql: Queryable, tenantId: number): Promise<LogoRow | undefined> {
  const [row] = await sql<LogoRow[]>`select media_type, data, width, height, updated_at from tenant_logos where tenant_id = ${tenantId}`;
  return row;
}

export async function saveLogo(sql: Queryable, tenantId: number, logo: Omit<LogoRow, 'updatedAt'>): Promise<LogoRow> {
  const [row] = await sql<LogoRow[]>`
    insert into tenant_logos (tenant_id, media_type, data, width, height, updated_at)
    values (${tenantId}, ${logo.mediaType}, ${logo.data}, ${logo.width}, ${logo.height}, now())
    on conflict (tenant_id) do update set media_type = excluded.media_type, data = excluded.data, width = excluded.width, height = excluded.height, updated_at = now()
    returning media_type, data, width, height, updated_at`;
  return row as LogoRow;
}

export async function deleteLogo(sql: Queryable, tenantId: number): Promise<boolean> {
  const rows = await sql`delete from tenant_logos where tenant_id = ${tenantId} returning tenant_id`;
  return rows.length > 0;
}
