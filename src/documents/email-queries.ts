// SQL of the e-CF e-mailed to its buyer: the tenant's settings and each document's outcome.
// Every change of a document's outcome also numbers its event (documents.event_seq), in the
// same statement, as the buyer leg does.
import type { Queryable } from '../db/connect.ts';

export const EMAIL_ESTADOS = ['pendiente', 'enviado', 'error'] as const;
export type EmailEstado = (typeof EMAIL_ESTADOS)[number];

export interface EmailSettingsRow {
  enabled: boolean;
  replyTo: string | null;
  updatedAt: Date;
}

export interface DocumentEmailRow {
  documentId: string;
  tenantId: number;
  estado: EmailEstado;
  destinatario: string;
  detalle: string | null;
  enviadoEn: Date | null;
  updatedAt: Date;
}

/** A changed outcome, with what its ecf.email_update names. */
export interface EmailChangeRow extends DocumentEmailRow {
  eventSeq: number;
  encf: string;
  environment: string;
}

export async function findEmailSettings(sql: Queryable, tenantId: number): Promise<EmailSettingsRow | undefined> {
  const [row] = await sql<EmailSettingsRow[]>`
    select enabled, reply_to, updated_at from tenant_email_settings where tenant_id = ${tenantId}`;
  return row;
}

export async function saveEmailSettings(sql: Queryable, tenantId: number, enabled: boolean, replyTo: string | null): Promise<EmailSettingsRow> {
  const [row] = await sql<EmailSettingsRow[]>`
    insert into tenant_email_settings (tenant_id, enabled, reply_to, updated_at) values (${tenantId}, ${enabled}, ${replyTo}, now())
    on conflict (tenant_id) do update set enabled = excluded.enabled, reply_to = excluded.reply_to, updated_at = now()
    returning enabled, reply_to, updated_at`;
  return row as EmailSettingsRow;
}

export async function findDocumentEmail(sql: Queryable, documentId: string): Promise<DocumentEmailRow | undefined> {
  const [row] = await sql<DocumentEmailRow[]>`
    select document_id, tenant_id, estado, destinatario, detalle, enviado_en, updated_at from document_emails where document_id = ${documentId}`;
  return row;
}

const CHANGED = 'e.document_id, e.tenant_id, e.estado, e.destinatario, e.detalle, e.enviado_en, e.updated_at, d.event_seq, d.encf, d.environment';

/**
 * Queues the e-mail of an accepted document when its tenant sends e-mail and it names a
 * CorreoComprador: pendiente, once (a document already queued keeps its row). Undefined when
 * nothing was queued.
 */
export async function queueDocumentEmail(sql: Queryable, documentId: string): Promise<EmailChangeRow | undefined> {
  const [row] = await sql<EmailChangeRow[]>`
    with target as (
      select d.id, d.tenant_id, d.ecf #>> '{Encabezado,Comprador,CorreoComprador}' as correo
      from documents d join tenant_email_settings s on s.tenant_id = d.tenant_id and s.enabled
      where d.id = ${documentId}
    ), e as (
      insert into document_emails (document_id, tenant_id, estado, destinatario)
      select id, tenant_id, 'pendiente', correo from target where correo is not null
      on conflict (document_id) do nothing
      returning *
    ), d as (
      update documents set event_seq = event_seq + 1 where id in (select document_id from e)
      returning id, event_seq, encf, environment
    )
    select ${sql.unsafe(CHANGED)} from e join d on d.id = e.document_id`;
  return row;
}

/**
 * The tenant's resend: pendiente again to `destinatario`, from any outcome but pendiente; the row
 * is created for a document that never had one. Undefined when one is already pending.
 */
export async function reopenDocumentEmail(sql: Queryable, documentId: string, tenantId: number, destinatario: string, detalle: string): Promise<EmailChangeRow | undefined> {
  const [row] = await sql<EmailChangeRow[]>`
    with e as (
      insert into document_emails (document_id, tenant_id, estado, destinatario, detalle)
      values (${documentId}, ${tenantId}, 'pendiente', ${destinatario}, ${detalle})
      on conflict (document_id) do update set estado = 'pendiente', destinatario = excluded.destinatario, detalle = excluded.detalle, updated_at = now()
        where document_emails.estado <> 'pendiente'
      returning *
    ), d as (
      update documents set event_seq = event_seq + 1 where id in (select document_id from e)
      returning id, event_seq, encf, environment
    )
    select ${sql.unsafe(CHANGED)} from e join d on d.id = e.document_id`;
  return row;
}

/** The job's outcome for a pending e-mail: enviado (now) or error; undefined when it was not pending. */
export async function recordEmailOutcome(sql: Queryable, documentId: string, estado: 'enviado' | 'error', detalle: string | null): Promise<EmailChangeRow | undefined> {
  const [row] = await sql<EmailChangeRow[]>`
    with e as (
      update document_emails set estado = ${estado}, detalle = ${detalle},
        enviado_en = case when ${estado} = 'enviado' then now() else enviado_en end, updated_at = now()
      where document_id = ${documentId} and estado = 'pendiente'
      returning *
    ), d as (
      update documents set event_seq = event_seq + 1 where id in (select document_id from e)
      returning id, event_seq, encf, environment
    )
    select ${sql.unsafe(CHANGED)} from e join d on d.id = e.document_id`;
  return row;
}
