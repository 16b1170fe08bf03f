import type { Queryable } from '../db/connect.ts';
import type { Fragment, RecordedEvent } from './outbox.ts';

/**
 * The pieces of the statement that stores an event: the `recorded_event` CTE with the
 * listeners' CTEs after it, and the select-list item that returns their outcomes. Fragments,
 * not a query: a feature that writes the change the event describes splices them into its own
 * statement (EventOutbox.prepare), and recordEvent below runs them alone. With `onlyIf` (a
 * select of ids) an event is stored only when its ref (`refs`, in the order of `events`) is
 * among them: the statement changed that row. The listeners' CTEs read `recorded_event`, so they
 * follow.
 */
export function eventStatement(sql: Queryable, events: readonly RecordedEvent[], refs: readonly (string | null)[], listenerCtes: readonly Fragment[], listenerOutcomes: readonly Fragment[], onlyIf: Fragment | null = null): { ctes: Fragment; outcomes: Fragment } {
  // The events travel as one JSON parameter however many there are (one statement text for any count).
  const rows = events.map((e, i) => ({ id: e.id, tenant_id: e.tenantId, kind: e.kind, body: e.body, sequence: e.sequence, ref: refs[i] ?? null }));
  const ctes = listenerCtes.reduce((acc, c) => sql`${acc} ${c}`, sql`
    recorded_event as (
      insert into events (id, tenant_id, kind, body, sequence)
      select e.id, e.tenant_id, e.kind, e.body, e.sequence
      from jsonb_to_recordset(${sql.json(rows)}) as e(id uuid, tenant_id integer, kind text, body text, sequence integer, ref uuid)
      ${onlyIf === null ? sql`` : sql`where e.ref in (${onlyIf})`}
      returning id
    )`);
  const list = listenerOutcomes.reduce<Fragment | null>((acc, o) => (acc === null ? o : sql`${acc}, ${o}`), null);
  return { ctes, outcomes: list === null ? sql`'{}'::int[] as event_outcomes` : sql`array[${list}]::int[] as event_outcomes` };
}

/** Stores an event with its listeners' writes (eventStatement's pieces); answers their outcomes. */
export async function recordEvent(sql: Queryable, ctes: Fragment, outcomes: Fragment): Promise<number[]> {
  const [row] = await sql<{ eventOutcomes: number[] }[]>`with ${ctes} select ${outcomes}`;
  return row?.eventOutcomes ?? [];
}

export async function findEvent(sql: Queryable, id: string): Promise<RecordedEvent | undefined> {
  const [row] = await sql<RecordedEvent[]>`select id, tenant_id, kind, body, sequence from events where id = ${id}`;
  return row;
}
