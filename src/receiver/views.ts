import { isoToDgiiDate } from '../documents/views.ts';
import type { ReceivedRow } from './queries.ts';

// What the tenant sees of a received e-CF, in the API and in the ecf.received event.
// Dates of the fiscal document keep DGII's dd-MM-yyyy.

export function receivedSummary(row: ReceivedRow) {
  return {
    id: row.id,
    environment: row.environment,
    tipo: row.tipo,
    encf: row.encf,
    rncEmisor: row.rncEmisor,
    razonSocialEmisor: row.razonSocialEmisor,
    rncComprador: row.rncComprador,
    fechaEmision: isoToDgiiDate(row.fechaEmision),
    montoTotal: row.montoTotal,
    codigoSeguridad: row.securityCode,
    signerTrusted: row.signerTrust === 'trusted',
    receivedAt: row.receivedAt.toISOString(),
    verificacionDgii: row.dgiiEstado === null ? null : { estado: row.dgiiEstado, codigo: row.dgiiCodigo, consultadoEn: row.dgiiConsultadoEn?.toISOString() ?? null },
  };
}

export function receivedDetail(row: ReceivedRow) {
  return { ...receivedSummary(row), signerSubject: row.signerSubject, document: { ECF: row.ecf } };
}

/** The ecf.received payload: the summary, so a receiver can fetch the rest by id. */
export function receivedEventPayload(row: ReceivedRow): Record<string, unknown> {
  return { ...receivedSummary(row), timestamp: new Date().toISOString() };
}

export type ReceivedSummary = ReturnType<typeof receivedSummary>;
