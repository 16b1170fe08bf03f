import type { Queryable } from '../db/connect.ts';
import type { Environment } from '../environments.ts';

// Numbers are bigint in the database (up to 9 999 999 999, beyond int4) and read as float8,
// which holds them exactly, so both drivers hand back JavaScript numbers.

export interface RangeRow {
  id: string;
  tenantId: number;
  environment: Environment;
  tipo: number;
  desde: number;
  hasta: number;
  /** yyyy-MM-dd, or null for the types that carry none (32, 34). */
  fechaVencimiento: string | null;
  nextValue: number;
  remaining: number;
  createdAt: Date;
}

export interface RangeListRow extends RangeRow {
  /** Whether an accepted annulment holds the range's last number. */
  lastAnnulled: boolean;
}

export interface AnnulmentRow {
  id: string;
  seq: string;
  tenantId: number;
  environment: Environment;
  tipo: number;
  desde: number;
  hasta: number;
  rncEmisor: string;
  estado: AnnulmentEstado;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  fechaHoraAnulacion: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ANNULMENT_ESTADOS = ['recibido', 'aceptado', 'rechazado', 'error'] as const;
export type AnnulmentEstado = (typeof ANNULMENT_ESTADOS)[number];

export interface Span {
  desde: number;
  hasta: number;
}

const RANGE = `id, tenant_id, environment, tipo, desde::float8 as desde, hasta::float8 as hasta,
  to_char(fecha_vencimiento, 'YYYY-MM-DD') as fecha_vencimiento, next_value::float8 as next_value,
  remaining::float8 as remaining, created_at`;
const ANNULMENT = `id, seq, tenant_id, environment, tipo, desde::float8 as desde, hasta::float8 as hasta, rnc_emisor,
  estado, dgii_code, dgii_message, fecha_hora_anulacion, created_at, updated_at`;

export async function insertRange(sql: Queryable, r: Omit<RangeRow, 'createdAt' | 'nextValue'>): Promise<RangeRow> {
  const [row] = await sql<RangeRow[]>`
    insert into encf_ranges (id, tenant_id, environment, tipo, desde, hasta, fecha_vencimiento, next_value, remaining)
    values (${r.id}, ${r.tenantId}, ${r.environment}, ${r.tipo}, ${r.desde}, ${r.hasta}, ${r.fechaVencimiento}::date, ${r.desde}, ${r.remaining})
    returning ${sql.unsafe(RANGE)}`;
  return row as RangeRow;
}

/** Takes the row lock that serialises registrations and annulments of one type. */
export async function lockTypeAlert(sql: Queryable, tenantId: number, environment: Environment, tipo: number): Promise<void> {
  await sql`
    insert into encf_low_alerts (tenant_id, environment, tipo, low) values (${tenantId}, ${environment}, ${tipo}, false)
    on conflict (tenant_id, environment, tipo) do update set low = encf_low_alerts.low`;
}

/** Records whether the type is low; answers true only when it just became low. */
export async function markLow(sql: Queryable, tenantId: number, environment: Environment, tipo: number, low: boolean): Promise<boolean> {
  const rows = await sql<{ low: boolean }[]>`
    insert into encf_low_alerts (tenant_id, environment, tipo, low) values (${tenantId}, ${environment}, ${tipo}, ${low})
    on conflict (tenant_id, environment, tipo) do update set low = excluded.low
    where encf_low_alerts.low <> excluded.low
    returning low`;
  return rows[0]?.low === true;
}

export async function overlappingRange(sql: Queryable, tenantId: number, environment: Environment, tipo: number, span: Span): Promise<RangeRow | undefined> {
  const [row] = await sql<RangeRow[]>`
    select ${sql.unsafe(RANGE)} from encf_ranges
    where tenant_id = ${tenantId} and environment = ${environment} and tipo = ${tipo} and desde <= ${span.hasta} and hasta >= ${span.desde}
    order by desde limit 1`;
  return row;
}

/** Every range of the type, locked until the transaction ends (in one order, so lockers never deadlock). */
export async function lockRanges(sql: Queryable, tenantId: number, environment: Environment, tipo: number): Promise<RangeRow[]> {
  return sql<RangeRow[]>`
    select ${sql.unsafe(RANGE)} from encf_ranges
    where tenant_id = ${tenantId} and environment = ${environment} and tipo = ${tipo}
    order by id for update`;
}

export async function updateRangePosition(sql: Queryable, id: string, nextValue: number, remaining: number): Promise<void> {
  await sql`update encf_ranges set next_value = ${nextValue}, remaining = ${remaining} where id = ${id}`;
}

/** Numbers left across the type's ranges that can still be used on `today` (yyyy-MM-dd). */
export async function remainingActive(sql: Queryable, tenantId: number, environment: Environment, tipo: number, today: string): Promise<number> {
  const [row] = await sql<{ total: number }[]>`
    select coalesce(sum(remaining), 0)::float8 as total from encf_ranges
    where tenant_id = ${tenantId} and environment = ${environment} and tipo = ${tipo}
      and (fecha_vencimiento is null or fecha_vencimiento >= ${today}::date)`;
  return row?.total ?? 0;
}

export async function listRanges(sql: Queryable, tenantId: number, environment: Environment, id?: string): Promise<RangeListRow[]> {
  return sql<RangeListRow[]>`
    select ${sql.unsafe(RANGE)}, exists (
      select 1 from annulments a where a.tenant_id = r.tenant_id and a.environment = r.environment and a.tipo = r.tipo
        and a.estado = 'aceptado' and a.desde <= r.hasta and a.hasta >= r.hasta
    ) as last_annulled
    from encf_ranges r
    where tenant_id = ${tenantId} and environment = ${environment} ${id === undefined ? sql`` : sql`and id = ${id}`}
    order by tipo, desde`;
}

/** Active ranges whose expiry is on or before `until` and that were not announced yet; marks them. */
export async function claimExpiring(sql: Queryable, today: string, until: string): Promise<RangeRow[]> {
  return sql<RangeRow[]>`
    update encf_ranges set expiring_notified_at = now()
    where expiring_notified_at is null and remaining > 0
      and fecha_vencimiento >= ${today}::date and fecha_vencimiento <= ${until}::date
    returning ${sql.unsafe(RANGE)}`;
}

/** Annulments that hold numbers (all but rejected ones) overlapping the span, lowest first. */
export async function holdingAnnulments(sql: Queryable, tenantId: number, environment: Environment, tipo: number, span: Span): Promise<Span[]> {
  return sql<Span[]>`
    select desde::float8 as desde, hasta::float8 as hasta from annulments
    where tenant_id = ${tenantId} and environment = ${environment} and tipo = ${tipo}
      and estado <> 'rechazado' and desde <= ${span.hasta} and hasta >= ${span.desde}
    order by desde`;
}

export async function insertAnnulment(sql: Queryable, a: Pick<AnnulmentRow, 'id' | 'tenantId' | 'environment' | 'tipo' | 'desde' | 'hasta' | 'rncEmisor'>): Promise<AnnulmentRow> {
  const [row] = await sql<AnnulmentRow[]>`
    insert into annulments (id, tenant_id, environment, tipo, desde, hasta, rnc_emisor, estado)
    values (${a.id}, ${a.tenantId}, ${a.environment}, ${a.tipo}, ${a.desde}, ${a.hasta}, ${a.rncEmisor}, 'recibido')
    returning ${sql.unsafe(ANNULMENT)}`;
  return row as AnnulmentRow;
}

export async function findAnnulment(sql: Queryable, id: string, scope?: { tenantId: number; environment: Environment }): Promise<AnnulmentRow | undefined> {
  const [row] = await sql<AnnulmentRow[]>`
    select ${sql.unsafe(ANNULMENT)} from annulments
    where id = ${id} ${scope === undefined ? sql`` : sql`and tenant_id = ${scope.tenantId} and environment = ${scope.environment}`}`;
  return row;
}

export async function listAnnulments(sql: Queryable, tenantId: number, environment: Environment, limit: number, afterSeq?: string): Promise<AnnulmentRow[]> {
  return sql<AnnulmentRow[]>`
    select ${sql.unsafe(ANNULMENT)} from annulments
    where tenant_id = ${tenantId} and environment = ${environment} ${afterSeq === undefined ? sql`` : sql`and seq < ${afterSeq}`}
    order by seq desc limit ${limit}`;
}

export async function findAnnulmentXml(sql: Queryable, id: string): Promise<string | null> {
  const [row] = await sql<{ signedXml: string | null }[]>`select signed_xml from annulments where id = ${id}`;
  return row?.signedXml ?? null;
}

/** Stores the signed ANECF unless one is stored already; answers the one kept. */
export async function storeAnnulmentXml(sql: Queryable, id: string, signedXml: string, fechaHora: string): Promise<string> {
  await sql`update annulments set signed_xml = ${signedXml}, fecha_hora_anulacion = ${fechaHora}, updated_at = now() where id = ${id} and signed_xml is null`;
  return (await findAnnulmentXml(sql, id)) ?? signedXml;
}

export async function updateAnnulmentEstado(sql: Queryable, id: string, to: AnnulmentEstado, dgiiCode: string | null, dgiiMessage: string | null): Promise<AnnulmentRow | undefined> {
  const [row] = await sql<AnnulmentRow[]>`
    update annulments set estado = ${to}, dgii_code = ${dgiiCode}, dgii_message = ${dgiiMessage}, updated_at = now()
    where id = ${id} and estado = 'recibido'
    returning ${sql.unsafe(ANNULMENT)}`;
  return row;
}

/**
 * Annulments still `recibido` with no `annulment.submit` job, oldest first: work the periodic job
 * repair gives a job again. Annulments are few and leave `recibido` at their first answer from
 * DGII, so the scan stays small.
 */
export async function annulmentsToSubmitWithoutJob(sql: Queryable, limit: number): Promise<{ id: string }[]> {
  return sql<{ id: string }[]>`
    select a.id from annulments a
    where a.estado = 'recibido'
      and not exists (select 1 from jobs j where j.kind = 'annulment.submit' and j.payload ->> 'annulmentId' = a.id::text)
    order by a.seq
    limit ${limit}`;
}
