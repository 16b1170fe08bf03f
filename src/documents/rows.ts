import type { Environment } from '../environments.ts';
import type { EcfObject } from '../ecf/types.ts';
import type { Estado, ReceptorEstado } from '../ecf/states.ts';
import { formatDec, parseDecimal, roundHalfUp } from '../ecf/decimal.ts';
import { asStoredJsonb } from '../db/jsonb-order.ts';
import type { NewDocument } from './queries.ts';

/** A document as the documents table holds it (queries.ts reads and writes it). */
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
  /** DGII's secuenciaUtilizada with its verdict; false frees the eNCF (emit it again, or annul it). */
  secuenciaUtilizada: boolean | null;
  /** Set with the signature, before the first submission; null until then. */
  securityCode: string | null;
  timbreUrl: string | null;
  /** dd-MM-yyyy HH:mm:ss (GMT-4), as in the signed XML. */
  fechaHoraFirma: string | null;
  /** The number of the document's latest event; each event takes the next one. */
  eventSeq: number;
  /** The ERP's own id and metadata (erp-reference.ts); never in the XML. */
  referencia: string | null;
  metadata: Record<string, string> | null;
  createdAt: Date;
  updatedAt: Date;
  /** The buyer leg; null until its delivery job decides (the view derives pendiente or no_aplica). */
  receptorEstado: ReceptorEstado | null;
  receptorMotivo: string | null;
  receptorDetalle: string | null;
  receptorUpdatedAt: Date | null;
  receptorReceivedAt: Date | null;
  /** The buyer's commercial approval, once its ACECF arrived. */
  aprobacionEstado: 'aprobado' | 'rechazado' | null;
  aprobacionMotivo: string | null;
  /** FechaHoraAprobacionComercial as the buyer wrote it (dd-MM-yyyy HH:mm:ss). */
  aprobacionFecha: string | null;
  /** Whether the approval's signer chains to a trusted CA; null without an approval. */
  aprobacionSignerTrusted: boolean | null;
}

/** A new document's row before the database numbered it (seq): what its emit answers with. */
export type CreatedDocument = Omit<DocumentRow, 'seq'>;

/** An amount as numeric(20, 2) gives it back: 1234.5 and 01234.50 are 1234.50. */
export function asStoredAmount(amount: string): string {
  const value = parseDecimal(amount);
  if (value === undefined) throw new Error(`a validated amount is not a decimal: ${amount}`);
  return formatDec(roundHalfUp(value, 2), 2);
}

/**
 * The row a new document has once stored, known before the insert returns: its timestamps
 * are the writer's (insertCreatedDocuments stores them), its amount and metadata written as
 * their columns give them back. So its emit's answer, stored in the same transaction, can be
 * sent with the insert rather than after it; the emit tests hold it equal to the row read back.
 */
export function createdRow(d: NewDocument): CreatedDocument {
  return {
    id: d.id, tenantId: d.tenantId, environment: d.environment, tipo: d.tipo, encf: d.encf, estado: 'recibido',
    rncEmisor: d.rncEmisor, rncComprador: d.rncComprador, fechaEmision: d.fechaEmision, montoTotal: asStoredAmount(d.montoTotal), ecf: d.ecf,
    trackId: null, dgiiCode: null, dgiiMessage: null, secuenciaUtilizada: null, securityCode: null, timbreUrl: null, fechaHoraFirma: null, eventSeq: FIRST_EVENT_SEQ,
    referencia: d.referencia ?? null, metadata: d.metadata === undefined || d.metadata === null ? null : asStoredJsonb(d.metadata), createdAt: d.createdAt, updatedAt: d.createdAt,
    receptorEstado: null, receptorMotivo: null, receptorDetalle: null, receptorUpdatedAt: null, receptorReceivedAt: null,
    aprobacionEstado: null, aprobacionMotivo: null, aprobacionFecha: null, aprobacionSignerTrusted: null,
  };
}

/** A document's event_seq when stored: its creation event is its first. */
export const FIRST_EVENT_SEQ = 1;
