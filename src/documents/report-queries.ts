import type { Queryable } from '../db/connect.ts';
import { issuedPage } from '../db/keyset.ts';
import type { Environment } from '../environments.ts';
import type { Estado } from '../ecf/states.ts';
import { listFilters, type ListFilter } from './queries.ts';

// The queries behind the dashboard's reports: the export's batches and the overview's counts.
// Read-only, over the same documents table as queries.ts, whose list filters they share.

/** One line of an export: what the CSV prints of a document. */
export interface ExportRow {
  /** The keyset: the next page starts below it. */
  seq: string;
  id: string;
  encf: string;
  tipo: number;
  fechaEmision: string;
  rncEmisor: string;
  rncComprador: string | null;
  razonSocialComprador: string | null;
  montoTotal: string;
  totalItbis: string | null;
  estado: Estado;
  securityCode: string | null;
  referencia: string | null;
  /** Only with `withXml`: the signed e-CF, its signed RFCE (a 32 under RD$250,000), the buyer's ARECF and ACECF. */
  signedXml?: string | null;
  rfceXml?: string | null;
  arecfXml?: string | null;
  acecfXml?: string | null;
  updatedAt: Date;
}

const EXPORT_COLUMNS = 'seq, id, encf, tipo, to_char(fecha_emision, \'YYYY-MM-DD\') as fecha_emision, rnc_emisor, rnc_comprador, ecf #>> \'{Encabezado,Comprador,RazonSocialComprador}\' as razon_social_comprador, monto_total, ecf #>> \'{Encabezado,Totales,TotalITBIS}\' as total_itbis, estado, security_code, referencia, updated_at';

/**
 * The filtered list, newest first, `batch` rows at a time: an export of any size holds one
 * batch in memory. Each batch is a query of its own on the list's keyset (seq below the last
 * row's), so no connection, transaction or snapshot is held between batches, however slowly
 * the export's reader takes them: the next batch is read only when it is asked for. Documents
 * created during the export are left out (their seq is higher); a document changed meanwhile
 * may show its newer state. With `withXml` only signed documents, each with its XML.
 */
export async function* exportDocuments(sql: Queryable, f: Omit<ListFilter, 'limit' | 'after'>, withXml: boolean, batch: number): AsyncGenerator<ExportRow[]> {
  const no = sql``;
  let after: string | undefined;
  for (;;) {
    const rows = await sql<ExportRow[]>`
      select ${sql.unsafe(EXPORT_COLUMNS)} ${withXml ? sql`, signed_xml, rfce_xml, arecf_xml, (select c.xml from commercial_approvals c where c.document_id = documents.id) as acecf_xml` : no} from documents
      where tenant_id = ${f.tenantId} and environment = ${f.environment}
        ${listFilters(sql, f)}
        ${withXml ? sql`and signed_xml is not null` : no}
        ${issuedPage(sql, { desde: f.desde, hasta: f.hasta, after, limit: batch })}`;
    if (rows.length > 0) yield rows;
    const last = rows.at(-1);
    if (last === undefined || rows.length < batch) return;
    after = last.seq;
  }
}

export interface EstadoDayCount {
  /** yyyy-MM-dd */
  day: string;
  estado: Estado;
  count: number;
}

/**
 * Documents per issue day and estado in [desde, hasta]: one index-only scan of
 * documents_stats_idx (sql/0016_dashboard.sql), however many documents the tenant has.
 */
export async function countByDayAndEstado(sql: Queryable, tenantId: number, environment: Environment, desde: string, hasta: string): Promise<EstadoDayCount[]> {
  return sql<EstadoDayCount[]>`
    select to_char(fecha_emision, 'YYYY-MM-DD') as day, estado, count(*)::int as count
    from documents
    where tenant_id = ${tenantId} and environment = ${environment}
      and fecha_emision between ${desde}::date and ${hasta}::date
    group by fecha_emision, estado
    order by fecha_emision`;
}
