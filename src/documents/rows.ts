import type { Environment } from '../environments.ts';
import type { EcfObject } from '../ecf/types.ts';
import type { Estado, ReceptorEstado } from '../ecf/states.ts';

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
}
