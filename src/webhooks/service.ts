import type { Sql } from '../db/connect.ts';
import { notFound } from '../errors.ts';
import type { EventKind, EventOutbox } from '../events/outbox.ts';
import { toPage } from '../lib/page.ts';
import { scheduleKeyedJob } from '../queue/queries.ts';
import { deliveryJobKey, type DeliveryEngine } from './delivery.ts';
import { DELIVERY_STATUSES, countDeliveriesByStatus, deliveryAttempts, findTenantDelivery, listDeliveries, restartDelivery, type DeliveryStatus, countDeliveryTrouble } from './queries.ts';
import { assertUrlConfigured, type WebhookSettings } from './settings.ts';
import { attemptView, deliveryView, resultView, shownDeliveryView } from './views.ts';

/** The deliveries API: test webhook, listing, one delivery with its attempts, redelivery. */
export class WebhookService {
  private readonly sql: Sql;
  private readonly outbox: EventOutbox;
  private readonly settings: WebhookSettings;
  private readonly engine: DeliveryEngine;
  private readonly timeoutMs: number;
  private readonly nudge: () => void;

  constructor(
    sql: Sql,
    outbox: EventOutbox,
    settings: WebhookSettings,
    engine: DeliveryEngine,
    timeoutMs: number,
    nudge: () => void,
  ) {
    this.sql = sql;
    this.outbox = outbox;
    this.settings = settings;
    this.engine = engine;
    this.timeoutMs = timeoutMs;
    this.nudge = nudge;
  }

  /**
   * Records a webhook.test event and its delivery, makes the first attempt now and answers
   * its outcome; a failure then follows the usual retry schedule. The delivery's job is
   * created in the same transaction but due only after the attempt could have finished, so
   * it is never lost and never runs alongside this first attempt.
   */
  async sendTest(tenantId: number) {
    const current = await this.settings.get(tenantId);
    assertUrlConfigured(current);
    const delivery = await this.sql.begin(async (tx) => {
      const event = await this.outbox.record(tx, tenantId, 'webhook.test', {
        tenantId,
        timestamp: new Date().toISOString(),
        message: 'Test webhook from the e-CF service: your endpoint is reachable and verifying signatures.',
      });
      return this.engine.createDelivery(tx, event, current.webhookUrl as string, this.timeoutMs + 60_000);
    });
    const startedAt = new Date();
    const outcome = await this.engine.attempt(delivery.id);
    const key = deliveryJobKey(delivery.id);
    // A webhook.test is about nothing but the endpoint: no subject.
    if (outcome === undefined) return { delivery: deliveryView(delivery, null), attempt: null };
    // A finished delivery's job is not deleted but made due now: it finds nothing pending and
    // ends, unless a redelivery started a new series since this attempt was recorded.
    await scheduleKeyedJob(this.sql, { kind: 'webhook.deliver', payload: { deliveryId: delivery.id, tenantId }, delayMs: outcome.retryInMs ?? 0, uniqueKey: key });
    if (outcome.retryInMs === null) this.nudge();
    // The attempt's record answers only what a job needs; the answer shows the whole delivery.
    const recorded = await findTenantDelivery(this.sql, tenantId, delivery.id);
    return {
      delivery: deliveryView(recorded ?? delivery, null),
      attempt: resultView(outcome.delivery.attemptCount, outcome.delivery.url, startedAt, outcome.result),
    };
  }

  async list(filter: { tenantId: number; status?: DeliveryStatus | 'failed'; event?: EventKind; after?: string; pageSize: number }) {
    return toPage(await listDeliveries(this.sql, { ...filter, limit: filter.pageSize + 1 }), filter.pageSize, shownDeliveryView);
  }

  async get(tenantId: number, id: string) {
    const d = await findTenantDelivery(this.sql, tenantId, id);
    if (d === undefined) throw notFound('Delivery');
    return { ...shownDeliveryView(d), body: d.body, attempts: (await deliveryAttempts(this.sql, d.id)).map(attemptView) };
  }

  /** Starts a new series of attempts at once, whatever the delivery's state. */
  async redeliver(tenantId: number, id: string) {
    const row = await this.sql.begin(async (tx) => {
      const restarted = await restartDelivery(tx, tenantId, id);
      if (restarted !== undefined) {
        await scheduleKeyedJob(tx, { kind: 'webhook.deliver', payload: { deliveryId: id, tenantId }, uniqueKey: deliveryJobKey(id) });
      }
      return restarted;
    });
    if (row === undefined) throw notFound('Delivery');
    this.nudge();
    return shownDeliveryView(row);
  }

  /** Failing (being retried) and abandoned deliveries, for the dashboard's overview. */
  deliveryTrouble(tenantId: number, since: string): Promise<{ failing: number; abandoned: number }> {
    return countDeliveryTrouble(this.sql, tenantId, since);
  }

  /** Deliveries by status for /metrics. */
  async gauges(): Promise<{ name: string; help: string; samples: { labels: { status: string }; value: number }[] }[]> {
    const counts = await countDeliveriesByStatus(this.sql);
    return [{
      name: 'ecf_webhook_deliveries',
      help: 'Webhook deliveries by status.',
      samples: DELIVERY_STATUSES.map((status) => ({ labels: { status }, value: counts.find((d) => d.status === status)?.n ?? 0 })),
    }];
  }
}
