import type { Queryable } from '../db/connect.ts';
import type { EventKind, Fragment } from '../events/outbox.ts';
import { deleteFinishedJobs } from '../queue/queries.ts';
import type { AttemptResult } from './sender.ts';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'abandoned'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface SettingsRow {
  url: string | null;
  secretSealed: Buffer | null;
  /** The secret a rotation replaced, signing beside the new one until it expires. */
  previousSecretSealed: Buffer | null;
  previousSecretExpiresAt: Date | null;
  updatedAt: Date;
}

export type NewSettings = Omit<SettingsRow, 'updatedAt'>;

export interface DeliveryRow {
  id: string;
  seq: string;
  tenantId: number;
  eventId: string;
  event: EventKind;
  status: DeliveryStatus;
  url: string;
  attemptCount: number;
  /** Which series of attempts is current; a redelivery starts the next one. */
  series: number;
  seriesAttempts: number;
  lastAttemptOk: boolean | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

export interface AttemptRow {
  number: number;
  url: string;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  ok: boolean;
  error: string | null;
  responseBody: string | null;
}

export async function findSettings(sql: Queryable, tenantId: number): Promise<SettingsRow | undefined> {
  const [row] = await sql<SettingsRow[]>`
    select url, secret_sealed, previous_secret_sealed, previous_secret_expires_at, updated_at from webhook_settings where tenant_id = ${tenantId}`;
  return row;
}

export async function upsertSettings(sql: Queryable, tenantId: number, s: NewSettings): Promise<SettingsRow> {
  const [row] = await sql<SettingsRow[]>`
    insert into webhook_settings (tenant_id, url, secret_sealed, previous_secret_sealed, previous_secret_expires_at)
    values (${tenantId}, ${s.url}, ${s.secretSealed}, ${s.previousSecretSealed}, ${s.previousSecretExpiresAt})
    on conflict (tenant_id) do update set url = excluded.url, secret_sealed = excluded.secret_sealed,
      previous_secret_sealed = excluded.previous_secret_sealed, previous_secret_expires_at = excluded.previous_secret_expires_at, updated_at = now()
    returning url, secret_sealed, previous_secret_sealed, previous_secret_expires_at, updated_at`;
  return row as SettingsRow;
}

const COLUMN_NAMES = ['id', 'seq', 'tenant_id', 'event_id', 'event', 'status', 'url', 'attempt_count', 'series', 'series_attempts', 'last_attempt_ok', 'last_status_code', 'last_error', 'last_attempt_at', 'next_attempt_at', 'delivered_at', 'created_at'] as const;
const COLUMNS = COLUMN_NAMES.join(', ');
/** The columns qualified by the alias `d`, for statements that join. */
const D_COLUMNS = COLUMN_NAMES.map((c) => `d.${c}`).join(', ');

export async function insertDelivery(sql: Queryable, d: { id: string; tenantId: number; eventId: string; event: EventKind; url: string }): Promise<DeliveryRow> {
  const [row] = await sql<DeliveryRow[]>`
    insert into webhook_deliveries (id, tenant_id, event_id, event, status, url, next_attempt_at)
    values (${d.id}, ${d.tenantId}, ${d.eventId}, ${d.event}, 'pending', ${d.url}, now())
    returning ${sql.unsafe(COLUMNS)}`;
  return row as DeliveryRow;
}

/**
 * The deliveries of events, as CTEs of the statement that inserts the events (its
 * `recorded_event`): each inserted only for an event recorded there and when its tenant has a
 * webhook URL, then `jobs` (a queue fragment given the ids of the deliveries inserted). `outcome`
 * counts the deliveries inserted.
 * The deliveries travel as one JSON parameter, so the text is the same for any number of them.
 */
export function deliveryCtes(sql: Queryable, deliveries: readonly { id: string; tenantId: number; eventId: string; event: EventKind }[], jobs: (inserted: Fragment) => Fragment): { ctes: Fragment; outcome: Fragment } {
  const rows = deliveries.map((d) => ({ id: d.id, tenant_id: d.tenantId, event_id: d.eventId, event: d.event }));
  const ctes = sql`,
    webhook_delivery as (
      insert into webhook_deliveries (id, tenant_id, event_id, event, status, url, next_attempt_at)
      select d.id, d.tenant_id, d.event_id, d.event, 'pending', s.url, now()
      from jsonb_to_recordset(${sql.json(rows)}) as d(id uuid, tenant_id integer, event_id uuid, event text)
      join recorded_event r on r.id = d.event_id
      join webhook_settings s on s.tenant_id = d.tenant_id and s.url is not null
      returning id
    ),
    webhook_delivery_job as (${jobs(sql`select id from webhook_delivery`)})`;
  return { ctes, outcome: sql`(select count(*)::int from webhook_delivery)` };
}

/** What an attempt reads of its delivery: not its outcome so far nor its times, which it does not use. */
export type DeliveryToSend = Pick<DeliveryRow, 'id' | 'tenantId' | 'event' | 'status' | 'url' | 'attemptCount' | 'series' | 'seriesAttempts'> & {
  body: string;
  /** The event's per-document sequence number; null for events not about one document. */
  eventSequence: number | null;
  settingsUrl: string | null;
  secretSealed: Buffer | null;
  previousSecretSealed: Buffer | null;
  previousSecretExpiresAt: Date | null;
};

/**
 * Several deliveries with what sending them needs, by id (one statement for a batch of jobs).
 * The ids are looked up as `= any(array(select ...))` (docs/architecture.md, "Plans made
 * once"): PostgreSQL plans that once per connection, through the primary key.
 */
export async function findDeliveriesToSend(sql: Queryable, ids: string[]): Promise<Map<string, DeliveryToSend>> {
  const rows = await sql<DeliveryToSend[]>`
    select d.id, d.tenant_id, d.event, d.status, d.url, d.attempt_count, d.series, d.series_attempts,
      e.body, e.sequence as event_sequence, s.url as settings_url, s.secret_sealed,
      s.previous_secret_sealed, s.previous_secret_expires_at
    from webhook_deliveries d join events e on e.id = d.event_id left join webhook_settings s on s.tenant_id = d.tenant_id
    where d.id = any(array(select jsonb_array_elements_text(${sql.json(ids)})::uuid))`;
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The payload fields that say what a delivery is about, read from its event at query time (a
 * join on the event's key per row shown, and one parse of its small body). Null where the
 * payload has no such field, as in webhook.test.
 */
export interface SubjectFields {
  subjectEncf: string | null;
  subjectEstado: string | null;
  subjectInternalTrackId: string | null;
  subjectRncEmisor: string | null;
  subjectRazonSocialEmisor: string | null;
  /** receptor.estado of an ecf.receptor_update. */
  subjectReceptor: string | null;
  /** aprobacionComercial.estado of an ecf.commercial_approval. */
  subjectAprobacion: string | null;
}

export type ShownDeliveryRow = DeliveryRow & SubjectFields;

const SUBJECT_COLUMNS = 's.encf as subject_encf, s.estado as subject_estado, s."internalTrackId" as subject_internal_track_id, '
  + 's."rncEmisor" as subject_rnc_emisor, s."razonSocialEmisor" as subject_razon_social_emisor, '
  + 's.receptor ->> \'estado\' as subject_receptor, s."aprobacionComercial" ->> \'estado\' as subject_aprobacion';
// Bodies are always JSON objects: EventOutbox.record writes them with JSON.stringify.
const SUBJECT_FROM = 'join events e on e.id = d.event_id '
  + 'cross join lateral jsonb_to_record(e.body::jsonb) as s(encf text, estado text, "internalTrackId" text, "rncEmisor" text, "razonSocialEmisor" text, '
  + 'receptor jsonb, "aprobacionComercial" jsonb)';
const SHOWN_COLUMNS = `${D_COLUMNS}, ${SUBJECT_COLUMNS}`;

/** One delivery of a tenant as the API shows it: with its subject and the exact body sent. */
export async function findTenantDelivery(sql: Queryable, tenantId: number, id: string): Promise<(ShownDeliveryRow & { body: string }) | undefined> {
  const [row] = await sql<(ShownDeliveryRow & { body: string })[]>`
    select ${sql.unsafe(SHOWN_COLUMNS)}, e.body
    from webhook_deliveries d ${sql.unsafe(SUBJECT_FROM)}
    where d.id = ${id} and d.tenant_id = ${tenantId}`;
  return row;
}

/** One finished attempt to record: the delivery's series it was made in, and what came of it. */
export interface AttemptToRecord {
  d: { id: string; series: number };
  /** The delivery's job making this attempt, deleted here if the delivery is finished (see recordAttempts). */
  job: { id: string; owner: string } | null;
  url: string;
  at: Date;
  r: AttemptResult;
  next: { status: DeliveryStatus; nextAttemptAt: Date | null };
}

/**
 * Records finished attempts of distinct deliveries in one statement: each adds to its
 * delivery's attempt count and its attempt row; it sets the delivery's status and outcome
 * only when the delivery is still pending in the series the attempt was made in (`applied`;
 * a redelivery meanwhile started another). Rows are locked in id order, so concurrent
 * batches cannot deadlock. A delivery no longer there is absent from the answer.
 *
 * An attempt made by a job whose delivery is now finished (not pending) deletes that job too,
 * on the queue's own condition (deleteFinishedJobs): only while its owner still holds the
 * lease and no rerun was asked (`jobDone`); otherwise the job is left to the runtime.
 */
/** What recording an attempt answers of its delivery: the rest is not read back (sendTest reads the whole row). */
export type RecordedDelivery = Pick<DeliveryRow, 'id' | 'status' | 'attemptCount' | 'url'>;

export async function recordAttempts(sql: Queryable, attempts: readonly AttemptToRecord[]): Promise<Map<string, { delivery: RecordedDelivery; applied: boolean; jobDone: boolean }>> {
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  const rows = await sql<(RecordedDelivery & { applied: boolean; jobDone: boolean })[]>`
    with input as (
      -- One JSON set, and the deliveries looked up by id as \`= any(array(select ...))\`:
      -- planned once per connection, through the primary key (see findDeliveriesToSend).
      select * from jsonb_to_recordset(${sql.json(attempts.map((a) => ({
        id: a.d.id, series: a.d.series, status: a.next.status, url: a.url, ok: a.r.ok, status_code: a.r.statusCode,
        error: a.r.error, at: iso(a.at), next_attempt_at: iso(a.next.nextAttemptAt), duration_ms: a.r.durationMs,
        response_body: a.r.responseBody, job_id: a.job?.id ?? null, job_owner: a.job?.owner ?? null,
      })))}) as u(id uuid, series integer, status text, url text, ok boolean, status_code integer, error text, at timestamptz,
        next_attempt_at timestamptz, duration_ms integer, response_body text, job_id bigint, job_owner text)
    ), target as (
      select w.id, (w.status = 'pending' and w.series = i.series) as applies
      from webhook_deliveries w join input i on i.id = w.id
      where w.id = any(array(select id from input))
      order by w.id
      for update of w
    ), updated as (
      update webhook_deliveries w set
        attempt_count = w.attempt_count + 1,
        status = case when t.applies then i.status else w.status end,
        url = case when t.applies then i.url else w.url end,
        series_attempts = w.series_attempts + case when t.applies then 1 else 0 end,
        last_attempt_ok = case when t.applies then i.ok else w.last_attempt_ok end,
        last_status_code = case when t.applies then i.status_code else w.last_status_code end,
        last_error = case when t.applies then i.error else w.last_error end,
        last_attempt_at = case when t.applies then i.at else w.last_attempt_at end,
        next_attempt_at = case when t.applies then i.next_attempt_at else w.next_attempt_at end,
        delivered_at = case when t.applies and i.ok then i.at else w.delivered_at end
      from target t join input i on i.id = t.id
      where w.id = any(array(select id from target)) and w.id = t.id
      returning w.id, w.status, w.attempt_count, w.url, t.applies as applied
    ), attempt as (
      insert into webhook_attempts (delivery_id, number, url, at, status_code, duration_ms, ok, error, response_body)
      select u.id, u.attempt_count, i.url, i.at, i.status_code, i.duration_ms, i.ok, i.error, i.response_body
      from updated u join input i on i.id = u.id
    ), finished as (${deleteFinishedJobs(sql, sql`
      select i.job_id, i.job_owner from updated u join input i on i.id = u.id where u.status <> 'pending'`)}
    )
    select u.id, u.status, u.attempt_count, u.url, u.applied, coalesce(i.job_id in (select id from finished), false) as job_done
    from updated u join input i on i.id = u.id`;
  return new Map(rows.map(({ applied, jobDone, ...delivery }) => [delivery.id, { delivery, applied, jobDone }]));
}

/**
 * Starts a new attempt series: pending again, the next series number, its count back to zero. The last
 * attempt's outcome is kept: a delivery whose attempts failed still counts as failed until
 * an attempt succeeds.
 */
export async function restartDelivery(sql: Queryable, tenantId: number, id: string): Promise<ShownDeliveryRow | undefined> {
  const [row] = await sql<ShownDeliveryRow[]>`
    with restarted as (
      update webhook_deliveries set status = 'pending', series = series + 1, series_attempts = 0, next_attempt_at = now()
      where id = ${id} and tenant_id = ${tenantId}
      returning ${sql.unsafe(COLUMNS)}
    )
    select ${sql.unsafe(SHOWN_COLUMNS)} from restarted d ${sql.unsafe(SUBJECT_FROM)}`;
  return row;
}

/** Gives up on a pending delivery that cannot be attempted any more, recording why. */
export async function abandonDelivery(sql: Queryable, id: string, reason: string): Promise<DeliveryRow | undefined> {
  const [row] = await sql<DeliveryRow[]>`
    update webhook_deliveries set status = 'abandoned', last_error = ${reason}, next_attempt_at = null
    where id = ${id} and status = 'pending'
    returning ${sql.unsafe(COLUMNS)}`;
  return row;
}

export async function deliveryAttempts(sql: Queryable, deliveryId: string): Promise<AttemptRow[]> {
  return sql<AttemptRow[]>`
    select number, url, at, status_code, duration_ms, ok, error, response_body
    from webhook_attempts where delivery_id = ${deliveryId} order by id`;
}

export interface DeliveryFilter {
  tenantId: number;
  status?: DeliveryStatus | 'failed';
  event?: EventKind;
  after?: string;
  limit: number;
}

export async function listDeliveries(sql: Queryable, f: DeliveryFilter): Promise<ShownDeliveryRow[]> {
  const no = sql``;
  const status = f.status === undefined ? no
    // docs/webhooks.md: "its last attempt failed", whichever series that attempt belonged to.
    : f.status === 'failed' ? sql`and (d.status = 'abandoned' or (d.status = 'pending' and d.last_attempt_ok = false))`
    : sql`and d.status = ${f.status}`;
  return sql<ShownDeliveryRow[]>`
    select ${sql.unsafe(SHOWN_COLUMNS)} from webhook_deliveries d ${sql.unsafe(SUBJECT_FROM)}
    where d.tenant_id = ${f.tenantId} ${status}
      ${f.event === undefined ? no : sql`and d.event = ${f.event}`}
      ${f.after === undefined ? no : sql`and d.seq < ${f.after}::bigint`}
    order by d.seq desc
    limit ${f.limit}`;
}

export async function countDeliveriesByStatus(sql: Queryable): Promise<{ status: DeliveryStatus; n: number }[]> {
  return sql<{ status: DeliveryStatus; n: number }[]>`select status, count(*)::int as n from webhook_deliveries group by status`;
}

/**
 * Deliveries in trouble for a tenant: pending after a failed attempt, and abandoned since a
 * day. Both read only the partial index of failed deliveries (webhook_deliveries_failed_idx).
 */
export async function countDeliveryTrouble(sql: Queryable, tenantId: number, since: string): Promise<{ failing: number; abandoned: number }> {
  const [row] = await sql<{ failing: number; abandoned: number }[]>`
    select count(*) filter (where status = 'pending')::int as failing,
           count(*) filter (where status = 'abandoned' and created_at >= ${since}::date)::int as abandoned
    from webhook_deliveries
    where tenant_id = ${tenantId} and (status = 'abandoned' or (status = 'pending' and last_attempt_ok = false))`;
  return row ?? { failing: 0, abandoned: 0 };
}

/**
 * Pending deliveries that have no job (key `keyPrefix` + id), oldest first: work the
 * periodic repair gives a job again. Reads webhook_deliveries_pending_idx and the jobs'
 * unique key, so its cost follows the pending deliveries, not the table.
 */
export async function pendingDeliveriesWithoutJob(sql: Queryable, keyPrefix: string, limit: number): Promise<{ id: string; tenantId: number }[]> {
  return sql<{ id: string; tenantId: number }[]>`
    select d.id, d.tenant_id from webhook_deliveries d
    where d.status = 'pending'
      and not exists (select 1 from jobs j where j.unique_key = ${keyPrefix} || d.id::text)
    order by d.seq
    limit ${limit}`;
}
