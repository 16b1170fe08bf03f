import { badge } from './dom.ts';
import { DELIVERY_STATUSES, ESTADOS, EVENTS, RETRYING } from './labels.ts';
import type { Delivery } from './types.ts';

// How a webhook delivery is named and shown, shared by the deliveries list, one delivery
// and the test on the webhooks page.

export function eventLabel(event: string): string {
  return (EVENTS as Record<string, string | undefined>)[event] ?? event;
}

/** Failed so far and still being tried: the last attempt of the current series did not succeed. */
export function retrying(d: Pick<Delivery, 'status' | 'lastError' | 'lastStatusCode'>): boolean {
  const failed = d.lastError !== null || (d.lastStatusCode !== null && (d.lastStatusCode < 200 || d.lastStatusCode > 299));
  return d.status === 'pending' && failed;
}

export function deliveryBadge(d: Pick<Delivery, 'status' | 'lastError' | 'lastStatusCode'>): HTMLElement {
  if (retrying(d)) return badge(RETRYING.label, RETRYING.tone, 'retrying');
  const s = DELIVERY_STATUSES[d.status];
  return badge(s?.label ?? d.status, s?.tone ?? 'neutral', d.status);
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/**
 * What a delivery is about, read from the body that was sent: the eNCF and its new estado,
 * the received e-CF and who sent it, or a test. Null when the body says nothing more than
 * the event's name.
 */
export function subjectOf(event: string, body: string): string | null {
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as Record<string, unknown>;
  const encf = text(p.encf);
  if (event === 'ecf.status_update' && encf !== null) {
    const estado = text(p.estado);
    const label = estado === null ? null : (ESTADOS as Record<string, { label: string } | undefined>)[estado]?.label ?? estado;
    return label === null ? encf : `${encf} · ${label}`;
  }
  if (event === 'ecf.received' && encf !== null) {
    const from = text(p.razonSocialEmisor) ?? text(p.rncEmisor);
    return from === null ? encf : `${encf} de ${from}`;
  }
  return null;
}
