import type { Queryable } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import type { EcfObject } from './validation/types.ts';
import type { Estado } from './states.ts';

export interface DocumentRow {
  id: string;
  seq: string;
  tenantId: number;
  environment: Environment;
  tipo: number;
  encf: string;
  estado: Estado;
  rncEmisor: string;
  rncComprador: string | null;
  fechaEmision: string;
  montoTotal: string;
  ecf: EcfObject;
  trackId: string | null;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  /** Set with the signature, before the first submission; null until then. */
  securityCode: string | null;
  timbreUrl: string | null;
  /** dd-MM-yyyy HH:mm:ss (GMT-4), as in the signed XML. */
  fechaHoraFirma: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What signing adds to a document, stored in one statement. */
export interface DocumentSignature {
  signedXml: string;
  rfceXml: string | null;
  securityCode: string;
  timbreUrl: string;
  fechaHoraFirma: string;
}

export interface SignedXml {
  signedXml: string;
  rfceXml: string | null;
}

export interface HistoryRow {
  estado: Estado;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  trackId: string | null;
  detail: string | null;
  at: Date;
}

export interface NewDocument {
  id: string;
  tenantId: number;
  environment: Environment;
  tipo: number;
  encf: string;
  rncEmisor: string;
  rncComprador: string | null;
  /** yyyy-MM-dd */
  fechaEmision: string;
  montoTotal: string;
  ecf: EcfObject;
}

// Columns every document query returns; fecha_emision as ISO text to avoid time zones.
const COLUMNS = 'id, seq, tenant_id, environment, tipo, encf, estado, rnc_emisor, rnc_comprador, to_char(fecha_emision, \'YYYY-MM-DD\') as fecha_emision, monto_total, ecf, track_id, dgii_code, dgii_message, security_code, timbre_url, fecha_hora_firma, created_at, updated_at';

export async function insertDocument(sql: Queryable, d: NewDocument): Promise<DocumentRow> {
  const [row] = await sql<DocumentRow[]>`
    insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, rnc_comprador, fecha_emision, monto_total, ecf)
    values (${d.id}, ${d.tenantId}, ${d.environment}, ${d.tipo}, ${d.encf}, 'recibido', ${d.rncEmisor}, ${d.rncComprador},
            ${d.fechaEmision}::date, ${d.montoTotal}::numeric, ${sql.json(d.ecf as never)})
    returning ${sql.unsafe(COLUMNS)}`;
  return row as DocumentRow;
}

/**
 * Takes the next `count` numbers of the sequence, under its row lock (held until the
 * caller's transaction ends): the numbers first..last.
 */
export async function takeSequenceRange(sql: Queryable, tenantId: number, environment: Environment, tipo: number, count: number): Promise<{ first: number; last: number }> {
  const [row] = await sql<{ lastValue: string }[]>`
    insert into encf_sequences (tenant_id, environment, tipo, last_value) values (${tenantId}, ${environment}, ${tipo}, ${count})
    on conflict (tenant_id, environment, tipo) do update set last_value = encf_sequences.last_value + ${count}
    returning last_value`;
  const last = Number(row?.lastValue);
  return { first: last - count + 1, last };
}

/** Which of these eNCFs the tenant already used (given explicitly) in the environment. */
export async function usedEncfs(sql: Queryable, tenantId: number, environment: Environment, encfs: string[]): Promise<Set<string>> {
  const rows = await sql<{ encf: string }[]>`
    select encf from documents where tenant_id = ${tenantId} and environment = ${environment} and encf = any(${encfs})`;
  return new Set(rows.map((r) => r.encf));
}

export async function findDocument(sql: Queryable, tenantId: number, environment: Environment, id: string): Promise<DocumentRow | undefined> {
  const [row] = await sql<DocumentRow[]>`
    select ${sql.unsafe(COLUMNS)} from documents where id = ${id} and tenant_id = ${tenantId} and environment = ${environment}`;
  return row;
}

/** For background jobs, which act on a document by id alone. */
export async function findDocumentById(sql: Queryable, id: string): Promise<DocumentRow | undefined> {
  const [row] = await sql<DocumentRow[]>`select ${sql.unsafe(COLUMNS)} from documents where id = ${id}`;
  return row;
}

/**
 * Stores the signature unless the document already has one (a concurrent worker signed it
 * first); either way answers the XML the document keeps, so every attempt sends the same bytes.
 */
export async function storeSignature(sql: Queryable, id: string, s: DocumentSignature): Promise<SignedXml | undefined> {
  const [stored] = await sql<SignedXml[]>`
    update documents set signed_xml = ${s.signedXml}, rfce_xml = ${s.rfceXml}, security_code = ${s.securityCode},
      timbre_url = ${s.timbreUrl}, fecha_hora_firma = ${s.fechaHoraFirma}, updated_at = now()
    where id = ${id} and signed_xml is null
    returning signed_xml, rfce_xml`;
  return stored ?? findSignedXml(sql, id);
}

/** The signed XML of a document, undefined while it has none. */
export async function findSignedXml(sql: Queryable, id: string): Promise<SignedXml | undefined> {
  const [row] = await sql<{ signedXml: string | null; rfceXml: string | null }[]>`
    select signed_xml, rfce_xml from documents where id = ${id}`;
  if (row === undefined || row.signedXml === null) return undefined;
  return { signedXml: row.signedXml, rfceXml: row.rfceXml };
}

export async function documentHistory(sql: Queryable, documentId: string): Promise<HistoryRow[]> {
  return sql<HistoryRow[]>`
    select estado, dgii_code, dgii_message, track_id, detail, at
    from document_history where document_id = ${documentId} order by id`;
}

/**
 * Moves a document from `from` to `to`, only if it is still in `from` (another worker
 * may have moved it meanwhile). Returns the updated row, or undefined if it was not.
 */
export async function updateEstado(
  sql: Queryable,
  id: string,
  from: Estado,
  to: Estado,
  dgii: { trackId?: string | null; dgiiCode: string | null; dgiiMessage: string | null },
): Promise<DocumentRow | undefined> {
  const [row] = await sql<DocumentRow[]>`
    update documents set estado = ${to}, updated_at = now(),
      track_id = coalesce(${dgii.trackId ?? null}, track_id),
      dgii_code = ${dgii.dgiiCode}, dgii_message = ${dgii.dgiiMessage}
    where id = ${id} and estado = ${from}
    returning ${sql.unsafe(COLUMNS)}`;
  return row;
}

export async function insertHistory(sql: Queryable, documentId: string, h: Omit<HistoryRow, 'at'>): Promise<void> {
  await sql`
    insert into document_history (document_id, estado, dgii_code, dgii_message, track_id, detail)
    values (${documentId}, ${h.estado}, ${h.dgiiCode}, ${h.dgiiMessage}, ${h.trackId}, ${h.detail})`;
}

export interface ListFilter {
  tenantId: number;
  environment: Environment;
  estado?: Estado;
  tipo?: number;
  encf?: string;
  /** yyyy-MM-dd, inclusive */
  desde?: string;
  hasta?: string;
  /** The seq of the last row of the previous page. */
  after?: string;
  limit: number;
}

/** Newest first, keyset-paginated on seq; every filter is optional. */
export async function listDocuments(sql: Queryable, f: ListFilter): Promise<DocumentRow[]> {
  const no = sql``;
  return sql<DocumentRow[]>`
    select ${sql.unsafe(COLUMNS)} from documents
    where tenant_id = ${f.tenantId} and environment = ${f.environment}
      ${f.estado === undefined ? no : sql`and estado = ${f.estado}`}
      ${f.tipo === undefined ? no : sql`and tipo = ${f.tipo}`}
      ${f.encf === undefined ? no : sql`and encf = ${f.encf}`}
      ${f.desde === undefined ? no : sql`and fecha_emision >= ${f.desde}::date`}
      ${f.hasta === undefined ? no : sql`and fecha_emision <= ${f.hasta}::date`}
      ${f.after === undefined ? no : sql`and seq < ${f.after}::bigint`}
    order by seq desc
    limit ${f.limit}`;
}

/**
 * Documents waiting to be sent (`recibido`) with no `document.submit` job, oldest first.
 * Submission jobs are found by their payload: the one made with the document has no key.
 */
export async function documentsToSubmitWithoutJob(sql: Queryable, limit: number): Promise<{ id: string }[]> {
  return sql<{ id: string }[]>`
    select d.id from documents d
    where d.estado = 'recibido'
      and not exists (select 1 from jobs j where j.kind = 'document.submit' and j.payload ->> 'documentId' = d.id::text)
    order by d.estado, d.seq
    limit ${limit}`;
}

/** Documents waiting for DGII's verdict (`en_proceso`) with no poll job (key `keyPrefix` + id), oldest first. */
export async function documentsAwaitingVerdictWithoutJob(sql: Queryable, keyPrefix: string, limit: number): Promise<{ id: string; trackId: string; updatedAt: Date }[]> {
  return sql<{ id: string; trackId: string; updatedAt: Date }[]>`
    select d.id, d.track_id, d.updated_at from documents d
    where d.estado = 'en_proceso' and d.track_id is not null
      and not exists (select 1 from jobs j where j.unique_key = ${keyPrefix} || d.id::text)
    order by d.estado, d.seq
    limit ${limit}`;
}
