import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import type { Queryable } from '../db/connect.ts';
import { eventStatement, recordEvent } from './queries.ts';

// The event kinds a tenant is notified of (X-ECF-Event and the payload's `event`).
export const EVENT_KINDS = ['ecf.status_update', 'webhook.test', 'ecf.received', 'ecf.receptor_update', 'ecf.commercial_approval', 'ecf.commercial_approval_update', 'ecf.received_verification', 'sequence.low', 'sequence.expiring', 'ecf.email_update'] as const;
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

/** One event to prepare: whose it is, what it says, and its per-document number if it has one. */
export interface EventEntry {
  /** Another kind than the one prepared, for an event stored in the same statement (a verdict's buyer leg). */
  kind?: EventKind;
  tenantId: number;
  payload: Record<string, unknown>;
  sequence?: number;
  /** The row whose change the event describes: with prepare's `onlyIf`, stored only if that row is among the ones it selects. */
  ref?: string;
}

/** A piece of SQL to splice into a statement (a postgres.js fragment). */
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** Reacts to an event inside the transaction that produced it, in statements of its own. */
export interface EventListener {
  /**
   * Whether it writes anything for `event`. Told before the event's statement runs, so that a
   * statement no listener writes after may run on its own, without a transaction around it.
   */
  wants(event: RecordedEvent): boolean;
  write(tx: Queryable, event: RecordedEvent): Promise<void>;
}

/** What a statement listener writes with the events of one statement (see StatementListener). */
export interface ListenerWrites {
  /**
   * Data-modifying CTEs, each starting with a comma; they write only for the events in
   * `recorded_event` (which may be none: EventOutbox.prepare's `onlyIf`).
   */
  ctes: Fragment;
  /** An integer expression over those CTEs (e.g. how many rows one inserted), handed to `settled`. */
  outcome: Fragment;
  /** Called once the statement ran, with `outcome`'s value. */
  settled(outcome: number): void;
}

/**
 * A listener whose writes depend only on the events and on rows already stored, so they can run
 * inside the statement that inserts the events (as data-modifying CTEs) instead of as statements
 * of their own after it: same transaction, same rows, one round trip and one statement for the
 * driver to build and parse instead of several. It gets every event of the statement at once
 * (one, or a batch of emitted documents' events), and writes for all of them in set-based SQL.
 * Null: nothing to write for these events.
 */
export interface StatementListener {
  writes(sql: Queryable, events: readonly RecordedEvent[]): ListenerWrites | null;
}

/**
 * An event ready to be stored by a statement of the caller's (EventOutbox.prepare): a feature
 * that writes the change the event describes puts `ctes` in its own WITH, so the change, the
 * event and what the listeners write with it are one statement.
 */
export interface PreparedEvents {
  events: RecordedEvent[];
  /** `recorded_event as (insert …)` and the listeners' CTEs: goes after a comma in a WITH. */
  ctes: Fragment;
  /** A select-list item, `… as event_outcomes`, the statement must return (an int[]). */
  outcomes: Fragment;
  /**
   * A plain listener writes for these events after their statement (EventListener.wants): then
   * the statement and `settle` must share a transaction. Otherwise `settle` writes nothing.
   */
  writesAfter: boolean;
  /**
   * After the statement ran, with its `event_outcomes`: the listeners hear of it, the plain ones
   * run, for the events whose `ref` is in `stored` when given (the rows the statement changed).
   */
  settle(tx: Queryable, outcomes: readonly number[], stored?: ReadonlySet<string>): Promise<void>;
}

/**
 * The transactional outbox: events are written by the same transaction as the change
 * they describe, so a status change is never committed without its event, nor an event
 * without its change.
 */
export class EventOutbox {
  private readonly listeners: EventListener[] = [];
  private readonly statementListeners: StatementListener[] = [];

  onEvent(listener: EventListener): void {
    this.listeners.push(listener);
  }

  /** A listener whose writes join the event's own statement. */
  onEventInStatement(listener: StatementListener): void {
    this.statementListeners.push(listener);
  }

  /**
   * Events of one kind (one per entry: the tenant, the payload, the optional sequence) and the
   * SQL that stores them all with their listeners' writes, for the caller's statement. With
   * `onlyIf` (a select of ids), an event is stored only if its entry's `ref` is among them.
   */
  prepare(sql: Queryable, kind: EventKind, entries: readonly EventEntry[], onlyIf: Fragment | null = null): PreparedEvents {
    const events = entries.map(({ kind: own, tenantId, payload, sequence }): RecordedEvent => ({
      id: randomUUID(),
      tenantId,
      kind: own ?? kind,
      body: JSON.stringify({ event: own ?? kind, ...payload, ...(sequence === undefined ? {} : { sequence }) }),
      sequence: sequence ?? null,
    }));
    const writes: ListenerWrites[] = [];
    for (const l of this.statementListeners) {
      const w = l.writes(sql, events);
      if (w !== null) writes.push(w);
    }
    const refs = entries.map((e) => e.ref ?? null);
    const { ctes, outcomes } = eventStatement(sql, events, refs, writes.map((w) => w.ctes), writes.map((w) => w.outcome), onlyIf);
    const after = events.flatMap((event, i) => this.listeners.filter((l) => l.wants(event)).map((listener) => ({ event, listener, ref: refs[i] ?? null })));
    return {
      events,
      ctes,
      outcomes,
      writesAfter: after.length > 0,
      settle: async (tx, values, stored) => {
        writes.forEach((w, i) => w.settled(values[i] ?? 0));
        for (const { event, listener, ref } of after) {
          if (stored === undefined || (ref !== null && stored.has(ref))) await listener.write(tx, event);
        }
      },
    };
  }

  async record(tx: Queryable, tenantId: number, kind: EventKind, payload: Record<string, unknown>, options: { sequence?: number } = {}): Promise<RecordedEvent> {
    const prepared = this.prepare(tx, kind, [{ tenantId, payload, sequence: options.sequence }]);
    await prepared.settle(tx, await recordEvent(tx, prepared.ctes, prepared.outcomes));
    return prepared.events[0] as RecordedEvent;
  }
}
