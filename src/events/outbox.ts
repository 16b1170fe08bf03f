import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/connect.ts';
import { insertEvent } from './queries.ts';

// The event kinds a tenant is notified of (X-ECF-Event and the payload's `event`).
export const EVENT_KINDS = ['ecf.status_update', 'webhook.test', 'ecf.received', 'ecf.receptor_update', 'ecf.commercial_approval', 'sequence.low', 'sequence.expiring'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface RecordedEvent {
  id: string;
  tenantId: number;
  kind: EventKind;
  /** The exact JSON bytes receivers get (signatures are computed over them). */
  body: string;
  /**
   * For events about one document: its per-document number, which only grows (X-ECF-Event-Sequence
   * and the payload's `sequence`). Null otherwise.
   */
  sequence: number | null;
}

/** Reacts to an event inside the transaction that produced it (e.g. to queue a delivery). */
export type EventListener = (tx: Queryable, event: RecordedEvent) => Promise<void>;

/**
 * The transactional outbox: events are written by the same transaction as the change
 * they describe, so a status change is never committed without its event, nor an event
 * without its change.
 */
export class EventOutbox {
  private readonly listeners: EventListener[] = [];

  onEvent(listener: EventListener): void {
    this.listeners.push(listener);
  }

  async record(tx: Queryable, tenantId: number, kind: EventKind, payload: Record<string, unknown>, options: { sequence?: number } = {}): Promise<RecordedEvent> {
    const sequence = options.sequence ?? null;
    const body = JSON.stringify({ event: kind, ...payload, ...(sequence === null ? {} : { sequence }) });
    const event: RecordedEvent = { id: randomUUID(), tenantId, kind, body, sequence };
    await insertEvent(tx, event);
    for (const listener of this.listeners) await listener(tx, event);
    return event;
  }
}
