import type { Queryable } from '../db/connect.ts';
import { issuedPage, whereEqual, type IssuedPageFilter } from '../db/keyset.ts';
import type { Environment } from '../environments.ts';
import type { ReceivedEcf } from './assess-ecf.ts';
import type { SignerTrust } from './signer-trust.ts';

// Received e-CF and commercial approvals. Each function is one statement.

export interface ReceivedRow extends Omit<ReceivedEcf, 'xml' | 'signerTrust'> {
  id: string;
  seq: string;
  tenantId: number;
  environment: Environment;
  /** 'unverified': received before signers were checked. */
  signerTrust: SignerTrust | 'unverified';
  receivedAt: Date;
  /** What DGII's Consulta Estado said (verification.ts); null when received before it was asked. */
  dgiiEstado: DgiiVerification | null;
  dgiiCodigo: number | null;
  dgiiConsultadoEn: Date | null;
}

export const DGII_VERIFICATIONS = ['pendiente', 'aceptado', 'aceptado_condicional', 'rechazado', 'en_proceso', 'no_encontrado', 'no_disponible', 'error'] as const;
export type DgiiVerification = (typeof DGII_VERIFICATIONS)[number];

// Every column but the two XML texts, which only their own endpoint reads.
const COLUMNS = 'id, seq, tenant_id, environment, tipo, encf, rnc_emisor, razon_social_emisor, rnc_comprador, to_char(fecha_emision, \'YYYY-MM-DD\') as fecha_emision, monto_total, security_code, signer_subject, signer_trust, ecf, received_at, dgii_estado, dgii_codigo, dgii_consultado_en';

/** Stores a received e-CF; undefined when the same emisor and eNCF were already received. */
export async function insertReceived(
  sql: Queryable,
  r: { id: string; tenantId: number; environment: Environment; document: ReceivedEcf; arecfXml: string },
): Promise<ReceivedRow | undefined> {
  const d = r.document;
  const [row] = await sql<ReceivedRow[]>`
    insert into received_documents (id, tenant_id, environment, tipo, encf, rnc_emisor, razon_social_emisor, rnc_comprador,
      fecha_emision, monto_total, security_code, signer_subject, signer_trust, ecf, xml, arecf_xml)
    values (${r.id}, ${r.tenantId}, ${r.environment}, ${d.tipo}, ${d.encf}, ${d.rncEmisor}, ${d.razonSocialEmisor}, ${d.rncComprador},
      ${d.fechaEmision}::date, ${d.montoTotal}::numeric, ${d.securityCode}, ${d.signerSubject}, ${d.signerTrust}, ${sql.json(d.ecf as never)}, ${d.xml}, ${r.arecfXml})
    on conflict (tenant_id, environment, rnc_emisor, encf) do nothing
    returning ${sql.unsafe(COLUMNS)}`;
  return row;
}

export async function findReceived(sql: Queryable, tenantId: number, environment: Environment, id: string): Promise<ReceivedRow | undefined> {
  const [row] = await sql<ReceivedRow[]>`
    select ${sql.unsafe(COLUMNS)} from received_documents where id = ${id} and tenant_id = ${tenantId} and environment = ${environment}`;
  return row;
}

/** By id alone, for the background verification. */
export async function findReceivedById(sql: Queryable, id: string): Promise<ReceivedRow | undefined> {
  const [row] = await sql<ReceivedRow[]>`select ${sql.unsafe(COLUMNS)} from received_documents where id = ${id}`;
  return row;
}

/** Records what DGII answered about a received e-CF. */
export async function recordVerification(sql: Queryable, id: string, estado: DgiiVerification, codigo: number | null): Promise<ReceivedRow | undefined> {
  const [row] = await sql<ReceivedRow[]>`
    update received_documents set dgii_estado = ${estado}, dgii_codigo = ${codigo}, dgii_consultado_en = now()
    where id = ${id}
    returning ${sql.unsafe(COLUMNS)}`;
  return row;
}

export async function findRejectUnknown(sql: Queryable, tenantId: number): Promise<boolean> {
  const [row] = await sql<{ rejectUnknown: boolean }[]>`select reject_unknown from receiver_settings where tenant_id = ${tenantId}`;
  return row?.rejectUnknown ?? false;
}

export async function saveRejectUnknown(sql: Queryable, tenantId: number, rejectUnknown: boolean): Promise<void> {
  await sql`
    insert into receiver_settings (tenant_id, reject_unknown) values (${tenantId}, ${rejectUnknown})
    on conflict (tenant_id) do update set reject_unknown = excluded.reject_unknown, updated_at = now()`;
}

/** The ACECF this tenant sent as buyer about a received e-CF, as signed. */
export async function findSentApprovalXml(sql: Queryable, tenantId: number, environment: Environment, receivedId: string): Promise<string | undefined> {
  const [row] = await sql<{ xml: string }[]>`
    select a.xml from sent_approvals a join received_documents r on r.id = a.received_document_id
    where r.id = ${receivedId} and r.tenant_id = ${tenantId} and r.environment = ${environment}`;
  return row?.xml;
}

export async function findReceivedXml(sql: Queryable, tenantId: number, environment: Environment, id: string): Promise<{ xml: string; arecfXml: string } | undefined> {
  const [row] = await sql<{ xml: string; arecfXml: string }[]>`
    select xml, arecf_xml from received_documents where id = ${id} and tenant_id = ${tenantId} and environment = ${environment}`;
  return row;
}

export interface ReceivedFilter extends IssuedPageFilter {
  tenantId: number;
  environment: Environment;
  rncEmisor?: string;
  tipo?: number;
  encf?: string;
}

/** Newest first, keyset-paginated on seq; every filter is optional. */
export async function listReceived(sql: Queryable, f: ReceivedFilter): Promise<ReceivedRow[]> {
  return sql<ReceivedRow[]>`
    select ${sql.unsafe(COLUMNS)} from received_documents
    where tenant_id = ${f.tenantId} and environment = ${f.environment}
      ${whereEqual(sql, { rnc_emisor: f.rncEmisor, tipo: f.tipo, encf: f.encf })}
      ${issuedPage(sql, f)}`;
}

/** An e-CF the tenant issued, as an ACECF names it. */
export interface IssuedDocument {
  id: string;
  rncComprador: string | null;
  /** yyyy-MM-dd */
  fechaEmision: string;
  montoTotal: string;
}

export async function findIssued(sql: Queryable, tenantId: number, environment: Environment, encf: string): Promise<IssuedDocument | undefined> {
  const [row] = await sql<IssuedDocument[]>`
    select id, rnc_comprador, to_char(fecha_emision, 'YYYY-MM-DD') as fecha_emision, monto_total
    from documents where tenant_id = ${tenantId} and environment = ${environment} and encf = ${encf}
    -- A number DGII gave back may be on a later document too: the live one is meant.
    order by secuencia_utilizada is false, seq desc limit 1`;
  return row;
}

export interface NewApproval {
  id: string;
  tenantId: number;
  documentId: string;
  rncComprador: string;
  estado: 1 | 2;
  detalleMotivoRechazo: string | null;
  fechaHoraAprobacion: string;
  xml: string;
  signerTrust: SignerTrust;
}

/**
 * Stores the approval; the XML of the one already stored when the document has one. One per
 * document, except that an approval whose signer is trusted replaces one whose signer is not
 * (a forged approval accepted unverified in a test environment must not hold the slot).
 */
export async function insertApproval(sql: Queryable, a: NewApproval): Promise<{ inserted: true } | { inserted: false; existingXml: string }> {
  const rows = await sql`
    insert into commercial_approvals (id, tenant_id, document_id, rnc_comprador, estado, detalle_motivo_rechazo, fecha_hora_aprobacion, xml, signer_trust)
    values (${a.id}, ${a.tenantId}, ${a.documentId}, ${a.rncComprador}, ${a.estado}, ${a.detalleMotivoRechazo}, ${a.fechaHoraAprobacion}, ${a.xml}, ${a.signerTrust})
    on conflict (document_id) do update set
      rnc_comprador = excluded.rnc_comprador, estado = excluded.estado, detalle_motivo_rechazo = excluded.detalle_motivo_rechazo,
      fecha_hora_aprobacion = excluded.fecha_hora_aprobacion, xml = excluded.xml, signer_trust = excluded.signer_trust, received_at = now()
    where excluded.signer_trust = 'trusted' and commercial_approvals.signer_trust <> 'trusted'
    returning 1`;
  if (rows.count > 0) return { inserted: true };
  const [existing] = await sql<{ xml: string }[]>`select xml from commercial_approvals where document_id = ${a.documentId}`;
  return { inserted: false, existingXml: existing?.xml ?? '' };
}

/** Shows the buyer's commercial approval on the issued document it concerns. */
/** Returns the document's event number this change takes (its events share one sequence). */
export async function markIssuedApproval(sql: Queryable, documentId: string, a: { estado: 'aprobado' | 'rechazado'; motivo: string | null; fecha: string; signerTrusted: boolean }): Promise<number> {
  const [row] = await sql<{ eventSeq: number }[]>`
    update documents set aprobacion_estado = ${a.estado}, aprobacion_motivo = ${a.motivo}, aprobacion_fecha = ${a.fecha},
      aprobacion_signer_trusted = ${a.signerTrusted}, updated_at = now(),
      event_seq = event_seq + 1
    where id = ${documentId}
    returning event_seq`;
  if (row === undefined) throw new Error(`document ${documentId} vanished while recording its commercial approval`);
  return Number(row.eventSeq);
}

/** The tenant's decision as buyer on a received e-CF, and what became of each of its two legs. */
export interface SentApprovalRow {
  id: string;
  tenantId: number;
  receivedDocumentId: string;
  estado: 'aprobado' | 'rechazado';
  motivo: string | null;
  xml: string;
  emisorEstado: string;
  emisorDetalle: string | null;
  dgiiEstado: string;
  dgiiDetalle: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** From the received document. */
  environment: Environment;
  rncEmisor: string;
  encf: string;
}

const SENT_COLUMNS = 'a.id, a.tenant_id, a.received_document_id, a.estado, a.motivo, a.xml, a.emisor_estado, a.emisor_detalle, a.dgii_estado, a.dgii_detalle, a.created_at, a.updated_at, r.environment, r.rnc_emisor, r.encf';

/** Stores the decision; undefined when the document already has one. */
export async function insertSentApproval(
  sql: Queryable,
  a: { id: string; tenantId: number; receivedDocumentId: string; estado: 'aprobado' | 'rechazado'; motivo: string | null; xml: string },
): Promise<boolean> {
  const rows = await sql`
    insert into sent_approvals (id, tenant_id, received_document_id, estado, motivo, xml)
    values (${a.id}, ${a.tenantId}, ${a.receivedDocumentId}, ${a.estado}, ${a.motivo}, ${a.xml})
    on conflict (received_document_id) do nothing
    returning 1`;
  return rows.count > 0;
}

export async function findSentApproval(sql: Queryable, id: string): Promise<SentApprovalRow | undefined> {
  const [row] = await sql<SentApprovalRow[]>`
    select ${sql.unsafe(SENT_COLUMNS)} from sent_approvals a join received_documents r on r.id = a.received_document_id where a.id = ${id}`;
  return row;
}

export async function findSentApprovalOf(sql: Queryable, receivedDocumentId: string): Promise<SentApprovalRow | undefined> {
  const [row] = await sql<SentApprovalRow[]>`
    select ${sql.unsafe(SENT_COLUMNS)} from sent_approvals a join received_documents r on r.id = a.received_document_id where a.received_document_id = ${receivedDocumentId}`;
  return row;
}

/** Records the outcome of one leg (to the emisor's receiver, or to DGII). */
export async function updateSentApprovalLeg(sql: Queryable, id: string, target: 'emisor' | 'dgii', estado: string, detalle: string | null): Promise<void> {
  if (target === 'emisor') {
    await sql`update sent_approvals set emisor_estado = ${estado}, emisor_detalle = ${detalle}, updated_at = now() where id = ${id}`;
  } else {
    await sql`update sent_approvals set dgii_estado = ${estado}, dgii_detalle = ${detalle}, updated_at = now() where id = ${id}`;
  }
}
