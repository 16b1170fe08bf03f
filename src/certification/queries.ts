import type { Queryable } from '../db/connect.ts';
import type { Environment } from '../environments.ts';

// The portal documents signed and the portal steps marked by hand. Each function is one statement.

export interface PortalSignatureRow {
  id: string;
  seq: string;
  tenantId: number;
  environment: Environment;
  userId: number;
  userEmail: string | null;
  documento: string;
  referencia: string | null;
  inputSha256: string;
  createdAt: Date;
}

const SIGNATURE_COLUMNS = 's.id, s.seq, s.tenant_id, s.environment, s.user_id, u.email as user_email, s.documento, s.referencia, s.input_sha256, s.created_at';

export async function insertPortalSignature(sql: Queryable, s: { id: string; tenantId: number; environment: Environment; userId: number; documento: string; referencia: string | null; inputSha256: string; signedXml: string }): Promise<void> {
  await sql`
    insert into portal_signatures (id, tenant_id, environment, user_id, documento, referencia, input_sha256, signed_xml)
    values (${s.id}, ${s.tenantId}, ${s.environment}, ${s.userId}, ${s.documento}, ${s.referencia}, ${s.inputSha256}, ${s.signedXml})`;
}

/** Newest first, every environment: the postulación is the taxpayer's, whichever path signed it. */
export async function listPortalSignatures(sql: Queryable, tenantId: number, after: string | undefined, limit: number): Promise<PortalSignatureRow[]> {
  return sql<PortalSignatureRow[]>`
    select ${sql.unsafe(SIGNATURE_COLUMNS)} from portal_signatures s left join users u on u.id = s.user_id
    where s.tenant_id = ${tenantId} ${after === undefined ? sql`` : sql`and s.seq < ${after}::bigint`}
    order by s.seq desc limit ${limit}`;
}

export async function findPortalSignedXml(sql: Queryable, tenantId: number, id: string): Promise<{ documento: string; signedXml: string } | undefined> {
  const [row] = await sql<{ documento: string; signedXml: string }[]>`
    select documento, signed_xml from portal_signatures where tenant_id = ${tenantId} and id = ${id}`;
  return row;
}

export async function countPortalSignatures(sql: Queryable, tenantId: number, documento: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from portal_signatures where tenant_id = ${tenantId} and documento = ${documento}`;
  return row?.n ?? 0;
}

export interface StepMarkRow {
  paso: string;
  estado: string;
  nota: string | null;
  updatedAt: Date;
}

export async function listStepMarks(sql: Queryable, tenantId: number, environment: Environment): Promise<StepMarkRow[]> {
  return sql<StepMarkRow[]>`select paso, estado, nota, updated_at from certification_steps where tenant_id = ${tenantId} and environment = ${environment}`;
}

export async function upsertStepMark(sql: Queryable, m: { tenantId: number; environment: Environment; paso: string; estado: string; nota: string | null; userId: number }): Promise<void> {
  await sql`
    insert into certification_steps (tenant_id, environment, paso, estado, nota, user_id)
    values (${m.tenantId}, ${m.environment}, ${m.paso}, ${m.estado}, ${m.nota}, ${m.userId})
    on conflict (tenant_id, environment, paso) do update set estado = excluded.estado, nota = excluded.nota, user_id = excluded.user_id, updated_at = now()`;
}

export interface SetRow { id: string; tenantId: number; environment: Environment; origen: string; createdAt: Date }

export interface CaseRow {
  setId: string;
  numero: number;
  caso: string;
  clase: 'ecf' | 'aprobacion';
  tipo: number | null;
  encf: string;
  fase: number;
  body: Record<string, unknown>;
  estado: 'pendiente' | 'enviado' | 'aceptado' | 'rechazado';
  detalle: string | null;
  documentId: string | null;
  approvalId: string | null;
  updatedAt: Date;
}

export type NewCase = Pick<CaseRow, 'numero' | 'caso' | 'clase' | 'tipo' | 'encf' | 'fase' | 'body'>;

export async function findSet(sql: Queryable, tenantId: number, environment: Environment): Promise<SetRow | undefined> {
  const [row] = await sql<SetRow[]>`select id, tenant_id, environment, origen, created_at from certification_sets where tenant_id = ${tenantId} and environment = ${environment}`;
  return row;
}

export async function deleteSet(sql: Queryable, id: string): Promise<void> {
  await sql`delete from certification_sets where id = ${id}`;
}

export async function insertSet(sql: Queryable, s: { id: string; tenantId: number; environment: Environment; origen: string }): Promise<void> {
  await sql`insert into certification_sets (id, tenant_id, environment, origen) values (${s.id}, ${s.tenantId}, ${s.environment}, ${s.origen})`;
}

export async function insertCase(sql: Queryable, setId: string, c: NewCase): Promise<void> {
  await sql`
    insert into certification_cases (set_id, numero, caso, clase, tipo, encf, fase, body)
    values (${setId}, ${c.numero}, ${c.caso}, ${c.clase}, ${c.tipo}, ${c.encf}, ${c.fase}, ${sql.json(c.body as never)})`;
}

/** In the order they are sent: fase, then the set's own order. */
export async function listCases(sql: Queryable, setId: string): Promise<CaseRow[]> {
  return sql<CaseRow[]>`
    select set_id, numero, caso, clase, tipo, encf, fase, body, estado, detalle, document_id, approval_id, updated_at
    from certification_cases where set_id = ${setId} order by fase, numero`;
}

export async function updateCase(sql: Queryable, setId: string, numero: number, c: { estado: string; detalle: string | null; documentId?: string | null; approvalId?: string | null }): Promise<void> {
  await sql`
    update certification_cases set estado = ${c.estado}, detalle = ${c.detalle},
      document_id = coalesce(${c.documentId ?? null}::uuid, document_id), approval_id = coalesce(${c.approvalId ?? null}::uuid, approval_id), updated_at = now()
    where set_id = ${setId} and numero = ${numero}`;
}
