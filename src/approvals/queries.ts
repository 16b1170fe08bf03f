import type { Queryable } from '../db/connect.ts';
import type { Environment } from '../environments.ts';

// Commercial approvals the tenant sends as buyer about any e-CF. Each function is one statement.

export interface ApprovalRequestRow {
  id: string;
  seq: string;
  tenantId: number;
  environment: Environment;
  rncEmisor: string;
  encf: string;
  /** yyyy-MM-dd */
  fechaEmision: string;
  montoTotal: string;
  rncComprador: string;
  estado: 'aprobado' | 'rechazado';
  motivo: string | null;
  xml: string;
  emisorEstado: string;
  emisorDetalle: string | null;
  dgiiEstado: string;
  dgiiDetalle: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, seq, tenant_id, environment, rnc_emisor, encf, to_char(fecha_emision, 'YYYY-MM-DD') as fecha_emision,
  monto_total::text as monto_total, rnc_comprador, estado, motivo, xml, emisor_estado, emisor_detalle, dgii_estado, dgii_detalle,
  created_at, updated_at`;

export type NewApprovalRequest = Pick<ApprovalRequestRow, 'id' | 'tenantId' | 'environment' | 'rncEmisor' | 'encf' | 'fechaEmision' | 'montoTotal' | 'rncComprador' | 'estado' | 'motivo' | 'xml'>;

/** False when the tenant already decided on this e-CF in this environment. */
export async function insertApprovalRequest(sql: Queryable, a: NewApprovalRequest): Promise<boolean> {
  const rows = await sql`
    insert into commercial_approval_requests (id, tenant_id, environment, rnc_emisor, encf, fecha_emision, monto_total, rnc_comprador, estado, motivo, xml)
    values (${a.id}, ${a.tenantId}, ${a.environment}, ${a.rncEmisor}, ${a.encf}, ${a.fechaEmision}::date, ${a.montoTotal}::numeric, ${a.rncComprador}, ${a.estado}, ${a.motivo}, ${a.xml})
    on conflict (tenant_id, environment, rnc_emisor, encf) do nothing
    returning id`;
  return rows.length === 1;
}

export async function findApprovalRequest(sql: Queryable, id: string): Promise<ApprovalRequestRow | undefined> {
  const [row] = await sql<ApprovalRequestRow[]>`select ${sql.unsafe(COLUMNS)} from commercial_approval_requests where id = ${id}`;
  return row;
}

export async function findTenantApprovalRequest(sql: Queryable, tenantId: number, environment: Environment, id: string): Promise<ApprovalRequestRow | undefined> {
  const [row] = await sql<ApprovalRequestRow[]>`
    select ${sql.unsafe(COLUMNS)} from commercial_approval_requests where id = ${id} and tenant_id = ${tenantId} and environment = ${environment}`;
  return row;
}

export async function findApprovalRequestOf(sql: Queryable, tenantId: number, environment: Environment, rncEmisor: string, encf: string): Promise<ApprovalRequestRow | undefined> {
  const [row] = await sql<ApprovalRequestRow[]>`
    select ${sql.unsafe(COLUMNS)} from commercial_approval_requests
    where tenant_id = ${tenantId} and environment = ${environment} and rnc_emisor = ${rncEmisor} and encf = ${encf}`;
  return row;
}

/** Newest first, pageSize + 1 rows after the cursor's seq. */
export async function listApprovalRequests(sql: Queryable, tenantId: number, environment: Environment, after: string | undefined, limit: number): Promise<ApprovalRequestRow[]> {
  return sql<ApprovalRequestRow[]>`
    select ${sql.unsafe(COLUMNS)} from commercial_approval_requests
    where tenant_id = ${tenantId} and environment = ${environment}
      ${after === undefined ? sql`` : sql`and seq < ${after}::bigint`}
    order by seq desc limit ${limit}`;
}

export async function updateApprovalRequestLeg(sql: Queryable, id: string, target: 'emisor' | 'dgii', estado: string, detalle: string | null): Promise<void> {
  if (target === 'emisor') {
    await sql`update commercial_approval_requests set emisor_estado = ${estado}, emisor_detalle = ${detalle}, updated_at = now() where id = ${id}`;
  } else {
    await sql`update commercial_approval_requests set dgii_estado = ${estado}, dgii_detalle = ${detalle}, updated_at = now() where id = ${id}`;
  }
}
