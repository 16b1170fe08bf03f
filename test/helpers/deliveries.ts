import { randomUUID } from 'node:crypto';
import type { TestService } from './service.ts';

/**
 * Events, webhook deliveries and their due jobs written directly, as the outbox would, then the
 * service's delivery runtime nudged. Answers the deliveries' ids.
 */
export async function queueDeliveriesOn(svc: TestService, tenantId: number, count: number, job: { attempts?: number } = {}): Promise<string[]> {
  const ids: string[] = [];
  await svc.sql.begin(async (tx) => {
    for (let i = 0; i < count; i++) {
      const eventId = randomUUID();
      const deliveryId = randomUUID();
      await tx`insert into events (id, tenant_id, kind, body) values (${eventId}, ${tenantId}, 'ecf.status_update', '{"event":"ecf.status_update"}')`;
      await tx`insert into webhook_deliveries (id, tenant_id, event_id, event, status, url) values (${deliveryId}, ${tenantId}, ${eventId}, 'ecf.status_update', 'pending', 'x')`;
      await tx`insert into jobs (kind, payload, unique_key, attempts) values ('webhook.deliver', ${tx.json({ deliveryId, tenantId })}, ${'delivery:' + deliveryId}, ${job.attempts ?? 0})`;
      ids.push(deliveryId);
    }
  });
  svc.service.deliveries.nudge();
  return ids;
}
