import type { Queryable } from '../db/connect.ts';

/** Each tenant's signing certificate (the active one) and when it stops being valid. */
export async function activeCertificateExpiries(sql: Queryable): Promise<{ tenantId: number; notAfter: Date }[]> {
  return sql<{ tenantId: number; notAfter: Date }[]>`
    select tenant_id, valid_to as not_after from certificates where active order by tenant_id`;
}
