import type { AttemptRow, DeliveryRow, ShownDeliveryRow } from './queries.ts';
import type { AttemptResult } from './sender.ts';

/** What a delivery is about, so a list can name it without reading each body. */
export type DeliverySubject =
  | { encf: string; estado: string; internalTrackId: string }
  | { encf: string; rncEmisor: string; razonSocialEmisor?: string }
  | { encf: string; internalTrackId: string; receptor: string }
  | { encf: string; internalTrackId: string; aprobacionComercial: string };

/** Null for webhook.test and sequence events, and for an event whose payload lacks the fields (none is written so). */
export function deliverySubject(d: ShownDeliveryRow): DeliverySubject | null {
  const encf = d.subjectEncf;
  if (encf === null) return null;
  const internalTrackId = d.subjectInternalTrackId;
  if (d.event === 'ecf.status_update') {
    if (d.subjectEstado === null || internalTrackId === null) return null;
    return { encf, estado: d.subjectEstado, internalTrackId };
  }
  if (d.event === 'ecf.receptor_update') {
    return d.subjectReceptor === null || internalTrackId === null ? null : { encf, internalTrackId, receptor: d.subjectReceptor };
  }
  if (d.event === 'ecf.commercial_approval') {
    return d.subjectAprobacion === null || internalTrackId === null ? null : { encf, internalTrackId, aprobacionComercial: d.subjectAprobacion };
  }
  // The received e-CF's emisor names it; an ACECF leg's update is about the same document.
  if (d.event === 'ecf.received' || d.event === 'ecf.received_verification' || d.event === 'ecf.commercial_approval_update') {
    if (d.subjectRncEmisor === null) return null;
    const razon = d.subjectRazonSocialEmisor;
    return { encf, rncEmisor: d.subjectRncEmisor, ...(razon === null || razon === '' ? {} : { razonSocialEmisor: razon }) };
  }
  return null;
}

/** A delivery as the API shows it, its subject read from the event. */
export function shownDeliveryView(d: ShownDeliveryRow) {
  return deliveryView(d, deliverySubject(d));
}

export function deliveryView(d: DeliveryRow, subject: DeliverySubject | null) {
  return {
    id: d.id,
    eventId: d.eventId,
    event: d.event,
    subject,
    status: d.status,
    url: d.url,
    attemptCount: d.attemptCount,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt?.toISOString() ?? null : null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
  };
}

export function attemptView(a: AttemptRow) {
  return {
    number: a.number,
    at: a.at.toISOString(),
    url: a.url,
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    ok: a.ok,
    error: a.error,
    responseBody: a.responseBody ?? '',
  };
}

export function resultView(number: number, url: string, at: Date, r: AttemptResult) {
  return attemptView({ number, url, at, statusCode: r.statusCode, durationMs: r.durationMs, ok: r.ok, error: r.error, responseBody: r.responseBody });
}
