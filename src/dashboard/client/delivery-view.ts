import { badge } from './dom.ts';
import { APROBACIONES, DELIVERY_STATUSES, ESTADOS, EVENTS, labelOf, RECEPTOR_ESTADOS, RETRYING } from './labels.ts';
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

/**
 * What a delivery is about, as the API names it: the eNCF and its new estado, its buyer leg or
 * the buyer's approval; or the received e-CF and who sent it. Null for a test, which is about
 * nothing but the endpoint.
 */
export function subjectLabel(d: Pick<Delivery, 'subject'>): string | null {
  const s = d.subject;
  if (s === null) return null;
  if ('estado' in s) return `${s.encf} · ${labelOf(ESTADOS, s.estado)}`;
  if ('receptor' in s) return `${s.encf} · ${labelOf(RECEPTOR_ESTADOS, s.receptor)}`;
  if ('aprobacionComercial' in s) return `${s.encf} · ${labelOf(APROBACIONES, s.aprobacionComercial)}`;
  return `${s.encf} de ${s.razonSocialEmisor ?? s.rncEmisor}`;
}
