import type { Queryable } from '../db/connect.ts';
import type { Fragment } from '../events/outbox.ts';
import { issuedPage, whereEqual, type IssuedPageFilter } from '../db/keyset.ts';
import type { Environment } from '../environments.ts';
import type { IssuedEcf } from '../ecf/types.ts';
import { FIRST_EVENT_SEQ, type DocumentRow } from './rows.ts';
import type { Estado, ReceptorEstado } from '../ecf/states.ts';

export type { DocumentRow } from './rows.ts';
export { FIRST_EVENT_SEQ };
export type { ReceptorEstado };

export interface HistoryRow {
  estado: Estado;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  trackId: string | null;
  detail: string | null;
  at: Date;
}

export interface NewDocument extends IssuedEcf {
  id: string;
  referencia?: string | null;
  metadata?: Record<string, string> | null;
  /** Stored as created_at and updated_at: the writer's clock, so the row is known before the insert returns. */
  createdAt: Date;
}

// Columns every document query returns; fecha_emision as ISO text to avoid time zones.
/** A document row's columns, as DocumentRow reads them (receptor-queries.ts selects them too). */
export const COLUMNS = 'id, seq, tenant_id, environment, tipo, encf, estado, rnc_emisor, rnc_comprador, to_char(fecha_emision, \'YYYY-MM-DD\') as fecha_emision, monto_total, ecf, track_id, dgii_code, dgii_message, secuencia_utilizada, security_code, timbre_url, fecha_hora_firma, event_seq, referencia, metadata, created_at, updated_at, receptor_estado, receptor_motivo, receptor_detalle, receptor_updated_at, receptor_received_at, aprobacion_estado, aprobacion_motivo, aprobacion_fecha, aprobacion_signer_trusted';


/**
 * Stores new documents as `recibido` with everything their creation writes, in one statement
 * however many they are (an emit batch's): the documents, their first history rows, their
 * creation events with what the events' listeners write with them (`events`:
 * EventOutbox.prepare's CTEs, so this feature names no other's tables) and their submission
 * jobs (`submitJobs`: the queue's fragment, given the ids inserted). The documents travel as
 * one JSON parameter, so the statement's text is the same for one document or sixty-four, and
 * the driver serialises one value rather than a dozen per document. Answers each document's seq,
 * in the order of `docs` (the rest of its row is createdRow's, known before); `eventOutcomes`
 * are the listeners' outcomes.
 */
export async function insertCreatedDocuments(sql: Queryable, docs: readonly NewDocument[], events: { ctes: Fragment; outcomes: Fragment }, submitJobs: (inserted: Fragment) => Fragment): Promise<{ seqs: string[]; eventOutcomes: number[] }> {
  const input = docs.map((d, ord) => ({
    ord, id: d.id, tenant_id: d.tenantId, environment: d.environment, tipo: d.tipo, encf: d.encf, rnc_emisor: d.rncEmisor, rnc_comprador: d.rncComprador,
    fecha_emision: d.fechaEmision, monto_total: d.montoTotal, ecf: d.ecf, referencia: d.referencia ?? null, metadata: d.metadata ?? null, created_at: d.createdAt,
  }));
  const inserted = await sql<{ id: string; seq: string; eventOutcomes: number[] }[]>`
    with input as (
      select * from jsonb_to_recordset(${sql.json(input as never)}) as d(
        ord integer, id uuid, tenant_id integer, environment text, tipo smallint, encf text, rnc_emisor text, rnc_comprador text,
        fecha_emision date, monto_total numeric, ecf jsonb, referencia text, metadata jsonb, created_at timestamptz)
    ),
    created_document as (
      insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, rnc_comprador, fecha_emision, monto_total, ecf, referencia, metadata, event_seq, created_at, updated_at)
      select id, tenant_id, environment, tipo, encf, 'recibido', rnc_emisor, rnc_comprador, fecha_emision, monto_total, ecf, referencia, metadata, ${FIRST_EVENT_SEQ}, created_at, created_at
      from input order by ord
      returning id, seq
    ),
    created_history as (
      insert into document_history (document_id, estado) select id, 'recibido' from input order by ord
    ),
    ${events.ctes},
    submit_job as (${submitJobs(sql`select id from created_document`)})
    select created_document.*, ${events.outcomes} from created_document`;
  const seqOf = new Map(inserted.map((r) => [r.id, r.seq]));
  const seqs = docs.map((d) => {
    const seq = seqOf.get(d.id);
    if (seq === undefined) throw new Error(`inserting document ${d.id} returned no row`);
    return seq;
  });
  return { seqs, eventOutcomes: inserted[0]?.eventOutcomes ?? [] };
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

/** The id of the transaction `tx` is in (pg_current_xact_id), to ask afterwards whether it committed. */
export async function currentTransactionId(tx: Queryable): Promise<string> {
  const [row] = await tx<{ xid: string }[]>`select pg_current_xact_id()::text as xid`;
  if (row === undefined) throw new Error('pg_current_xact_id() answered no row');
  return row.xid;
}

/** Whether transaction `xid` committed, aborted or is still in progress (pg_xact_status). */
export async function transactionStatus(sql: Queryable, xid: string): Promise<string | null> {
  const [row] = await sql<{ status: string | null }[]>`select pg_xact_status(${xid}::xid8) as status`;
  return row?.status ?? null;
}

/** Which of these eNCFs the tenant already used (given explicitly) in the environment. */
export async function usedEncfs(sql: Queryable, tenantId: number, environment: Environment, encfs: string[]): Promise<Set<string>> {
  const rows = await sql<{ encf: string }[]>`
    select encf from documents where tenant_id = ${tenantId} and environment = ${environment} and encf = any(${encfs})
      and secuencia_utilizada is not false`;
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

/** findDocumentById for many: the jobs of one claim read their documents together. */
export async function findDocumentsById(sql: Queryable, ids: readonly string[]): Promise<Map<string, DocumentRow>> {
  const rows = await sql<DocumentRow[]>`select ${sql.unsafe(COLUMNS)} from documents where id = any(${ids}::uuid[])`;
  return new Map(rows.map((r) => [r.id, r]));
}


export async function documentHistory(sql: Queryable, documentId: string): Promise<HistoryRow[]> {
  return sql<HistoryRow[]>`
    select estado, dgii_code, dgii_message, track_id, detail, at
    from document_history where document_id = ${documentId} order by id`;
}

/**
 * The row transitionDocument moved (its id), for what is written only with it: the event's
 * condition (EventOutbox.prepare's `onlyIf`), a job made with the change (insertJobsFor's refs).
 */
export function transitionedDocument(sql: Queryable): Fragment {
  return sql`select id from transitioned_document`;
}

/** The document read and locked until the caller's transaction ends. */
export async function lockDocument(sql: Queryable, id: string): Promise<DocumentRow | undefined> {
  const [row] = await sql<DocumentRow[]>`select ${sql.unsafe(COLUMNS)} from documents where id = ${id} for update`;
  return row;
}

/** One document's change for transitionDocuments: from its state as read, to `to`, with what DGII said. */
export interface DocumentChange {
  doc: { id: string; estado: Estado; eventSeq: number };
  to: Estado;
  trackId?: string | null;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  secuenciaUtilizada?: boolean | null;
  detail: string | null;
  /** The buyer leg settled with the change (its event follows the change's own). */
  receptor?: { estado: ReceptorEstado; motivo: string | null; detalle: string; at: Date } | null;
}

/**
 * Moves documents, each from its state to its `to`, with their history rows, their events
 * (`events`, prepared with transitionedDocument as their condition and each document's id as
 * its event's ref) and `also`, a data-modifying statement the caller conditions on
 * transitionedDocument too: one statement and one round trip however many documents. A document
 * moves only while it is in its `doc.estado` with event_seq `doc.eventSeq` (its event was
 * numbered eventSeq + 1); the answer lists those that moved. Their rows come back only when
 * `whole` (a caller that shows it): reading back the e-CF's JSON a background job does not need
 * was a tenth of its work in the driver. The changes travel as one JSON parameter and the
 * documents are found as `= any(array(select ...))`: one statement text for any count, whose
 * generic plan goes through the primary key (docs/architecture.md, "Plans made once").
 */
export async function transitionDocuments(
  sql: Queryable,
  changes: readonly DocumentChange[],
  events: { ctes: Fragment; outcomes: Fragment },
  also: Fragment | null,
  whole: boolean,
): Promise<{ rows: DocumentRow[]; moved: Set<string>; eventOutcomes: number[] }> {
  // The change's columns are named apart from the documents' own, so RETURNING names these unqualified.
  const input = changes.map((c) => {
    const r = c.receptor ?? null;
    return {
      change_id: c.doc.id, from_estado: c.doc.estado, from_event_seq: c.doc.eventSeq, to_estado: c.to, step: r === null ? 1 : 2,
      settles_receptor: r !== null, new_receptor_estado: r?.estado ?? null, new_receptor_motivo: r?.motivo ?? null, new_receptor_detalle: r?.detalle ?? null, new_receptor_at: r?.at ?? null,
      new_track_id: c.trackId ?? null, new_dgii_code: c.dgiiCode, new_dgii_message: c.dgiiMessage, new_secuencia_utilizada: c.secuenciaUtilizada ?? null, history_detail: c.detail,
    };
  });
  const rows = await sql<(DocumentRow & { historyDetail: string | null; eventOutcomes: number[] })[]>`
    with change as (
      select * from jsonb_to_recordset(${sql.json(input as never)}) as c(
        change_id uuid, from_estado text, from_event_seq integer, to_estado text, step integer,
        settles_receptor boolean, new_receptor_estado text, new_receptor_motivo text, new_receptor_detalle text, new_receptor_at timestamptz,
        new_track_id text, new_dgii_code text, new_dgii_message text, new_secuencia_utilizada boolean, history_detail text)
    ),
    transitioned_document as (
      update documents d set estado = c.to_estado, updated_at = now(), event_seq = d.event_seq + c.step,
        receptor_estado = case when c.settles_receptor then c.new_receptor_estado else d.receptor_estado end,
        receptor_motivo = case when c.settles_receptor then c.new_receptor_motivo else d.receptor_motivo end,
        receptor_detalle = case when c.settles_receptor then c.new_receptor_detalle else d.receptor_detalle end,
        receptor_updated_at = case when c.settles_receptor then c.new_receptor_at else d.receptor_updated_at end,
        track_id = coalesce(c.new_track_id, d.track_id),
        dgii_code = c.new_dgii_code, dgii_message = c.new_dgii_message,
        secuencia_utilizada = coalesce(c.new_secuencia_utilizada, d.secuencia_utilizada)
      from change c
      where d.id = any(array(select change_id from change)) and d.id = c.change_id and d.estado = c.from_estado and d.event_seq = c.from_event_seq
      returning ${whole ? sql.unsafe(COLUMNS) : sql`id, estado, dgii_code, dgii_message, track_id`}, history_detail
    ),
    transition_history as (
      insert into document_history (document_id, estado, dgii_code, dgii_message, track_id, detail)
      select id, estado, dgii_code, dgii_message, track_id, history_detail from transitioned_document
    ),
    ${events.ctes}${also === null ? sql`` : sql`,
    transition_also as (${also})`}
    select ${whole ? sql`transitioned_document.*` : sql`transitioned_document.id`}, ${events.outcomes} from transitioned_document`;
  const moved = new Set(rows.map((r) => r.id));
  const eventOutcomes = rows[0]?.eventOutcomes ?? [];
  return { rows: whole ? rows.map(({ eventOutcomes: _o, historyDetail: _d, ...row }) => row) : [], moved, eventOutcomes };
}

export interface ListFilter extends IssuedPageFilter {
  tenantId: number;
  environment: Environment;
  estado?: Estado;
  tipo?: number;
  encf?: string;
  referencia?: string;
  rncComprador?: string;
}

/** The equality filters a list and an export share. */
export function listFilters(sql: Queryable, f: Omit<ListFilter, 'limit'>) {
  return whereEqual(sql, { estado: f.estado, tipo: f.tipo, encf: f.encf, rnc_comprador: f.rncComprador, referencia: f.referencia });
}

/** Newest first, keyset-paginated on seq; every filter is optional. */
export async function listDocuments(sql: Queryable, f: ListFilter): Promise<DocumentRow[]> {
  return sql<DocumentRow[]>`
    select ${sql.unsafe(COLUMNS)} from documents
    where tenant_id = ${f.tenantId} and environment = ${f.environment}
      ${listFilters(sql, f)}
      ${issuedPage(sql, f)}`;
}

/**
 * How many documents of the tenant use an eNCF from `from` to `to` (eNCFs of one type compare as
 * text). A document whose number DGII says was not used (secuencia_utilizada false) uses none.
 */
export async function countDocumentsIn(sql: Queryable, tenantId: number, environment: Environment, from: string, to: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from documents
    where tenant_id = ${tenantId} and environment = ${environment} and encf >= ${from} and encf <= ${to} and secuencia_utilizada is not false`;
  return row?.n ?? 0;
}

/** The lowest-numbered document from `from` to `to` that is not in `estado`, if any. */
export async function firstDocumentNotIn(sql: Queryable, tenantId: number, environment: Environment, from: string, to: string, estado: Estado): Promise<{ encf: string; estado: Estado } | undefined> {
  const [row] = await sql<{ encf: string; estado: Estado }[]>`
    select encf, estado from documents
    where tenant_id = ${tenantId} and environment = ${environment} and encf >= ${from} and encf <= ${to} and estado <> ${estado}
      and secuencia_utilizada is not false
    order by encf limit 1`;
  return row;
}

/** The documents from `from` to `to`, lowest number first (at most `limit`). */
export async function documentsIn(sql: Queryable, tenantId: number, environment: Environment, from: string, to: string, limit: number): Promise<DocumentRow[]> {
  return sql<DocumentRow[]>`
    select ${sql.unsafe(COLUMNS)} from documents
    where tenant_id = ${tenantId} and environment = ${environment} and encf >= ${from} and encf <= ${to}
    order by encf limit ${limit}`;
}


/** An e-CF of the tenant by its eNCF, for the rules on the documents a 33 or 34 modifies. */
export interface EncfHolder {
  estado: Estado;
  tipo: number;
  /** yyyy-MM-dd */
  fechaEmision: string;
  rncComprador: string | null;
  montoTotal: string;
}

export async function findByEncf(sql: Queryable, tenantId: number, environment: Environment, encf: string): Promise<EncfHolder | undefined> {
  const [row] = await sql<EncfHolder[]>`
    select estado, tipo, to_char(fecha_emision, 'YYYY-MM-DD') as fecha_emision, rnc_comprador, monto_total::text as monto_total
    from documents where tenant_id = ${tenantId} and environment = ${environment} and encf = ${encf}
    order by secuencia_utilizada is false, seq desc limit 1`;
  return row;
}

/**
 * The sum of the credit notes (34) issued against an e-CF, but those DGII refused or that ended
 * in error (they credit nothing), as text; '0' when there are none.
 */
export async function creditedAgainst(sql: Queryable, tenantId: number, environment: Environment, encf: string): Promise<string> {
  const [row] = await sql<{ total: string }[]>`
    select coalesce(sum(monto_total), 0)::text as total from documents
    where tenant_id = ${tenantId} and environment = ${environment} and tipo = 34
      and ecf -> 'InformacionReferencia' ->> 'NCFModificado' = ${encf} and estado not in ('rechazado', 'error')`;
  return row?.total ?? '0';
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
