import type { Queryable } from '../db/connect.ts';
import type { ReceptorEstado } from '../ecf/states.ts';
import { COLUMNS } from './queries.ts';
import type { DocumentRow } from './rows.ts';

// The buyer leg's writes and reads on a document: what came of delivering the e-CF to its buyer
// (src/documents/buyer-delivery.ts), the buyer's ARECF and its commercial approval.

export interface ReceptorChange {
  estado: ReceptorEstado;
  motivo: string | null;
  detalle: string | null;
  /** The buyer's signed ARECF, when it answered with one. */
  arecfXml: string | null;
}

/**
 * Records the outcome of the buyer leg, unless it already ended in recibido or no_recibido (a
 * late retry does not overwrite the buyer's answer). Undefined when nothing was changed.
 */
export async function updateReceptor(sql: Queryable, id: string, c: ReceptorChange): Promise<DocumentRow | undefined> {
  const [row] = await sql<DocumentRow[]>`
    update documents set receptor_estado = ${c.estado}, receptor_motivo = ${c.motivo}, receptor_detalle = ${c.detalle},
      arecf_xml = coalesce(${c.arecfXml}, arecf_xml), receptor_updated_at = now(),
      receptor_received_at = case when ${c.arecfXml}::text is null then receptor_received_at else now() end,
      event_seq = event_seq + 1
    where id = ${id} and (receptor_estado is null or receptor_estado not in ('recibido', 'no_recibido'))
    returning ${sql.unsafe(COLUMNS)}`;
  return row;
}

/**
 * Puts a buyer leg that ended in error back to pendiente, for its delivery to run again.
 * Undefined when the leg was not in error (any more).
 */
export async function reopenReceptor(sql: Queryable, id: string, detalle: string): Promise<DocumentRow | undefined> {
  const [row] = await sql<DocumentRow[]>`
    update documents set receptor_estado = 'pendiente', receptor_motivo = null, receptor_detalle = ${detalle}, receptor_updated_at = now(),
      event_seq = event_seq + 1
    where id = ${id} and receptor_estado = 'error'
    returning ${sql.unsafe(COLUMNS)}`;
  return row;
}

/** The buyer's ARECF of a document, undefined while it has none. */
export async function findArecf(sql: Queryable, id: string): Promise<string | undefined> {
  const [row] = await sql<{ arecfXml: string | null }[]>`select arecf_xml from documents where id = ${id}`;
  return row?.arecfXml ?? undefined;
}

/** The buyer's signed commercial approval (ACECF) of a document, undefined while it has none. */
export async function findReceivedAcecf(sql: Queryable, id: string): Promise<string | undefined> {
  const [row] = await sql<{ xml: string }[]>`select xml from commercial_approvals where document_id = ${id}`;
  return row?.xml;
}
