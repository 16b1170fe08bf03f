import type { Queryable } from '../db/connect.ts';
import type { RecordedEvent } from './outbox.ts';

export async function insertEvent(sql: Queryable, e: RecordedEvent): Promise<void> {
  await sql`insert into events (id, tenant_id, kind, body, sequence) values (${e.id}, ${e.tenantId}, ${e.kind}, ${e.body}, ${e.sequence})`;
}

export async function findEvent(sql: Queryable, id: string): Promise<RecordedEvent | undefined> {
  const [row] = await sql<RecordedEvent[]>`select id, tenant_id, kind, body, sequence from events where id = ${id}`;
  return row;
}
