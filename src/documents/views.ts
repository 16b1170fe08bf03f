import type { DocumentRow, HistoryRow, ReceptorEstado } from './queries.ts';
import { buyerLegApplies } from './buyer-leg.ts';

// What the API shows of a document. Dates of the fiscal document keep DGII's dd-MM-yyyy.

export function isoToDgiiDate(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${d}-${m}-${y}`;
}

export function dgiiToIsoDate(dgii: string): string {
  const [d, m, y] = dgii.split('-');
  return `${y}-${m}-${d}`;
}

/** Comprador.RazonSocialComprador of the stored e-CF, when it names the buyer. */
function buyerName(row: DocumentRow): string | null {
  const comprador = (row.ecf?.Encabezado as { Comprador?: { RazonSocialComprador?: unknown } } | undefined)?.Comprador;
  const name = comprador?.RazonSocialComprador;
  return typeof name === 'string' && name !== '' ? name : null;
}

export function documentSummary(row: DocumentRow) {
  return {
    internalTrackId: row.id,
    environment: row.environment,
    tipo: row.tipo,
    encf: row.encf,
    estado: row.estado,
    rncEmisor: row.rncEmisor,
    rncComprador: row.rncComprador,
    razonSocialComprador: buyerName(row),
    fechaEmision: isoToDgiiDate(row.fechaEmision),
    montoTotal: row.montoTotal,
    trackId: row.trackId,
    dgiiCode: row.dgiiCode,
    dgiiMessage: row.dgiiMessage,
    secuenciaUtilizada: row.secuenciaUtilizada,
    securityCode: row.securityCode,
    timbreUrl: row.timbreUrl,
    fechaHoraFirma: row.fechaHoraFirma,
    referencia: row.referencia,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    receptor: receptorView(row),
    aprobacionComercial: row.aprobacionEstado === null ? null : { estado: row.aprobacionEstado, motivo: row.aprobacionMotivo, fecha: row.aprobacionFecha, signerTrusted: row.aprobacionSignerTrusted === true },
  };
}

/** Until its delivery job decides, the buyer leg is pendiente, or no_aplica where it never runs. */
function derivedEstado(row: DocumentRow): ReceptorEstado {
  if (!buyerLegApplies(row.tipo, row.rncComprador)) return 'no_aplica';
  return row.estado === 'rechazado' || row.estado === 'error' || row.estado === 'anulado' ? 'no_aplica' : 'pendiente';
}

export function receptorView(row: DocumentRow) {
  return {
    estado: row.receptorEstado ?? derivedEstado(row),
    motivo: row.receptorMotivo,
    detalle: row.receptorDetalle,
    updatedAt: row.receptorUpdatedAt?.toISOString() ?? null,
    receivedAt: row.receptorReceivedAt?.toISOString() ?? null,
  };
}

/** The ecf.receptor_update payload. */
export function receptorUpdatePayload(doc: DocumentRow): Record<string, unknown> {
  return { internalTrackId: doc.id, encf: doc.encf, environment: doc.environment, rncComprador: doc.rncComprador, receptor: receptorView(doc), timestamp: new Date().toISOString() };
}

export function documentDetail(row: DocumentRow, history: HistoryRow[]) {
  return {
    ...documentSummary(row),
    history: history.map((h) => ({
      estado: h.estado,
      dgiiCode: h.dgiiCode,
      dgiiMessage: h.dgiiMessage,
      trackId: h.trackId,
      detail: h.detail,
      at: h.at.toISOString(),
    })),
    document: { ECF: row.ecf },
  };
}

export type DocumentSummary = ReturnType<typeof documentSummary>;
