import type { AttemptRow, DeliveryRow } from './queries.ts';
import type { AttemptResult } from './sender.ts';

export function deliveryView(d: DeliveryRow) {
  return {
    id: d.id,
    eventId: d.eventId,
    event: d.event,
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
