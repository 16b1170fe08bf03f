import type { Queryable } from '../db/connect.ts';
import type { RecordedEvent } from './outbox.ts';

export async function insertEvent(sql: Queryable, e: RecordedEvent): Promise<void> {
  await sql`insert into events (id, tenant_id, kind, body) values (${e.id}, ${e.tenantId}, ${e.kind}, ${e.body})`;
}

export async function findEvent(sql: Queryable, id: string): Promise<RecordedEvent | undefined> {
  const [row] = await sql<RecordedEvent[]>`select id, tenant_id, kind, body from events where id = ${id}`;
  return row;
}
