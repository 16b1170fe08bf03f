import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.ts';
import type { Queryable, Sql } from '../db/connect.ts';
import type { RecordedEvent, StatementListener } from '../events/outbox.ts';
import { storableText } from '../lib/pg-text.ts';
import type { Logger } from '../log.ts';
import type { JobDefinition } from '../queue/runtime.ts';
import { insertJob, insertJobsFor, type NewJob } from '../queue/queries.ts';
import { abandonDelivery, deliveryCtes, findDeliveriesToSend, insertDelivery, pendingDeliveriesWithoutJob, recordAttempts, type AttemptToRecord, type DeliveryRow, type DeliveryStatus, type DeliveryToSend, type RecordedDelivery } from './queries.ts';
import { postWebhook, type AttemptResult } from './sender.ts';
import type { WebhookSettings } from './settings.ts';
import { signatureHeaders } from './signing.ts';
import { BatchLoader } from '../lib/batch-loader.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import { errorMessage } from '../errors.ts';

// A delivery is one event sent to one tenant's URL:
//
//   state      trigger                         next       also
//   pending    attempt answered 2xx in time    delivered  no retry
//   pending    attempt failed, retries left    pending    next attempt after the next delay
//                                                         (1 min, 5 min, 30 min, 2 h, 12 h)
//   pending    the 5th retry failed            abandoned  no further attempt
//   any        redeliver                       pending    a new series of attempts starts now
//   pending    its job failed its last run     abandoned  the reason in lastError
//
// "failed" is not a state: the listing filter means abandoned, or pending after a failed
// attempt. Each delivery has one job (unique key delivery:<id>) that makes its attempts;
// an attempt whose worker died is made again when the job's lease expires (at least once).
// Whatever goes wrong while making an attempt (a secret that no longer decrypts, a broken
// answer) is a failed attempt on the schedule above; only a failure to record it fails the
// job, and a job failing for the last time abandons its delivery, so none is left pending
// without a job. An attempt of a series a redelivery replaced is recorded but decides nothing.

const DELIVERY_JOB_KEY_PREFIX = 'delivery:';

export function deliveryJobKey(deliveryId: string): string {
  return `${DELIVERY_JOB_KEY_PREFIX}${deliveryId}`;
}

function deliveryJob(deliveryId: string, tenantId: number, delayMs: number): NewJob & { uniqueKey: string } {
  return { kind: 'webhook.deliver', payload: { deliveryId, tenantId }, delayMs, uniqueKey: deliveryJobKey(deliveryId) };
}

/**
 * Gives up to `limit` pending deliveries that have no job (a write lost to the database
 * driver did that once) their job back, due now. For the periodic job repair.
 */
export async function recreateDeliveryJobs(sql: Queryable, limit: number, recreated: () => void): Promise<number> {
  const orphans = await pendingDeliveriesWithoutJob(sql, DELIVERY_JOB_KEY_PREFIX, limit);
  // The key makes this a no-op for a delivery another instance's repair got to first.
  for (const d of orphans) if ((await insertJob(sql, deliveryJob(d.id, d.tenantId, 0))) !== null) recreated();
  return orphans.length;
}

export interface AttemptOutcome {
  delivery: RecordedDelivery;
  result: AttemptResult;
  /** Wait before the next attempt when the delivery is still pending. */
  retryInMs: number | null;
  /** The job given to `attempt` was deleted with the record (the delivery is finished). */
  jobDone: boolean;
}

const NO_URL_LOG_EVERY_MS = 10 * 60_000;
/**
 * A delivery's run (reading it, the attempt, recording it) within this is a quick receiver's:
 * its tenant may have more in flight (JobGroup.burst). Well above the few milliseconds a
 * receiver on the same network answers in, well below a slow one's seconds.
 */
const QUICK_RECEIVER_MS = 250;
const NO_URL_TENANTS_REMEMBERED = 10_000;

export class DeliveryEngine {
  /** The deliveries of jobs started together (a claimed batch) are read with one statement. */
  private readonly toSend: BatchLoader<string, DeliveryToSend>;
  /**
   * Attempts are recorded one statement at a time: those that finish while one is written go
   * together in the next (group commit, docs/architecture.md), not one statement per turn.
   */
  private readonly recorder: BatchLoader<AttemptToRecord, Recorded>;
  private readonly sql: Sql;
  private readonly settings: WebhookSettings;
  private readonly config: Config['webhooks'];
  private readonly userAgent: string;
  private readonly log: Logger;
  /** Told the tenants whose deliveries a statement queued, once it ran (their runtime claims them at once). */
  private readonly onQueued: (tenantIds: readonly number[]) => void;
  /** The tenants without a URL said to be so in the log within NO_URL_LOG_EVERY_MS (see onEvent). */
  private readonly toldNoUrl = new TtlCache<true>(NO_URL_LOG_EVERY_MS, NO_URL_TENANTS_REMEMBERED);

  constructor(
    sql: Sql,
    settings: WebhookSettings,
    config: Config['webhooks'],
    userAgent: string,
    log: Logger,
    onQueued: (tenantIds: readonly number[]) => void = () => {},
  ) {
    this.sql = sql;
    this.settings = settings;
    this.config = config;
    this.userAgent = userAgent;
    this.log = log;
    this.onQueued = onQueued;
    this.toSend = new BatchLoader((ids) => findDeliveriesToSend(sql, ids));
    this.recorder = new BatchLoader((attempts) => recordDistinct(sql, attempts), 100, 'turn', true);
  }

  /**
   * Outbox listener: queues a delivery of every event to the tenant's URL, with its job, in
   * the statement that stores the event (no URL: nothing, and a log line saying so, once per
   * tenant every NO_URL_LOG_EVERY_MS: a line per event would be most of a busy tenant's log).
   */
  readonly onEvent: StatementListener = {
    writes: (sql, events) => {
      // The test webhook makes its first attempt itself (see WebhookService.sendTest).
      const delivered = events.filter((e) => e.kind !== 'webhook.test');
      if (delivered.length === 0) return null;
      const deliveries = delivered.map((e) => ({ id: randomUUID(), tenantId: e.tenantId, eventId: e.id, event: e.kind }));
      const jobs = deliveries.map((d) => ({ ref: d.id, job: deliveryJob(d.id, d.tenantId, 0) }));
      const { ctes, outcome } = deliveryCtes(sql, deliveries, (inserted) => insertJobsFor(sql, jobs, inserted));
      return {
        ctes,
        outcome,
        settled: (inserted) => {
          // None inserted: no tenant of these events has a URL. (A statement's events are one
          // tenant's; were they several, a partial count could not say which lacks one.)
          if (inserted === 0) for (const event of delivered) this.tellNoUrl(event);
          else this.onQueued([...new Set(delivered.map((e) => e.tenantId))]);
        },
      };
    },
  };

  private tellNoUrl(event: RecordedEvent): void {
    const tenant = String(event.tenantId);
    if (this.toldNoUrl.get(tenant) !== undefined) return;
    this.toldNoUrl.set(tenant, true);
    this.log.info('event recorded; no webhook URL is configured, so it is not delivered (said once every 10 minutes per tenant)', { tenant: event.tenantId, event: event.kind, eventId: event.id });
  }

  async createDelivery(tx: Queryable, event: RecordedEvent, url: string, delayMs: number): Promise<DeliveryRow> {
    const delivery = await insertDelivery(tx, { id: randomUUID(), tenantId: event.tenantId, eventId: event.id, event: event.kind, url });
    await insertJob(tx, deliveryJob(delivery.id, event.tenantId, delayMs));
    return delivery;
  }

  /**
   * Makes one attempt of a pending delivery and records it. Undefined when it is not pending.
   * An attempt cut by `signal` (its job now runs elsewhere) is not recorded: the job's new
   * owner makes it again, at least once as always. `job`: the delivery's job making the
   * attempt, deleted in the same statement as the record when the delivery is finished.
   */
  async attempt(deliveryId: string, signal?: AbortSignal, job?: { id: string; owner: string }): Promise<AttemptOutcome | undefined> {
    const d = await this.toSend.get(deliveryId);
    if (d === undefined || d.status !== 'pending') return undefined;
    const at = new Date();
    const { url, result } = await this.send(d, signal);
    signal?.throwIfAborted();
    const delays = this.config.retryDelaysMs;
    const retryNumber = d.seriesAttempts; // 0 for the first attempt of a series
    const retryInMs = result.ok || retryNumber >= delays.length ? null : (delays[retryNumber] as number);
    const status: DeliveryStatus = result.ok ? 'delivered' : retryInMs === null ? 'abandoned' : 'pending';
    const recorded = await this.recorder.get({
      d, job: job ?? null, url: url ?? d.url, at, r: result,
      next: { status, nextAttemptAt: retryInMs === null ? null : new Date(at.getTime() + retryInMs) },
    });
    if (recorded === undefined) return undefined;
    const { delivery, applied, jobDone } = recorded;
    if (!applied) {
      // A redelivery started a new series while this attempt was in flight; its job could not
      // be moved then (this run held it), so the new series starts now.
      this.log.info('webhook attempt of a replaced series recorded', { tenant: d.tenantId, delivery: d.id, attempt: delivery.attemptCount });
      return { delivery, result, retryInMs: delivery.status === 'pending' ? 0 : null, jobDone };
    }
    if (status === 'abandoned') this.log.warn('webhook delivery abandoned', { tenant: d.tenantId, delivery: d.id, attempts: delivery.attemptCount, error: result.error });
    return { delivery, result, retryInMs, jobDone };
  }

  /** Sends the delivery once. Never throws: anything that goes wrong is a failed attempt. */
  private async send(d: DeliveryToSend, signal: AbortSignal | undefined): Promise<{ url: string | null; result: AttemptResult }> {
    const started = performance.now();
    let url: string | null = null;
    try {
      const at = new Date();
      const settings = this.settings.forDelivery(d.tenantId, {
        url: d.settingsUrl, secretSealed: d.secretSealed, previousSecretSealed: d.previousSecretSealed, previousSecretExpiresAt: d.previousSecretExpiresAt,
      }, at);
      url = settings.url;
      if (url === null) return { url, result: { ok: false, statusCode: null, durationMs: 0, error: 'no webhook URL is configured', responseBody: '' } };
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': this.userAgent,
        'x-ecf-tenant-id': String(d.tenantId),
        'x-ecf-event': d.event,
        'x-ecf-delivery-id': d.id,
        'x-ecf-delivery-attempt': String(d.attemptCount + 1),
        ...(d.eventSequence === null ? {} : { 'x-ecf-event-sequence': String(d.eventSequence) }),
        ...signatureHeaders(settings.secrets, d.id, at, d.body),
      };
      const result = await postWebhook(url, d.body, headers, { timeoutMs: this.config.timeoutMs, allowPrivate: this.config.allowPrivateNetworks, signal });
      return { url, result: storable(result) };
    } catch (err) {
      const error = storableText(errorMessage(err));
      return { url, result: { ok: false, statusCode: null, durationMs: Math.round(performance.now() - started), error, responseBody: '' } };
    }
  }

  /** The `webhook.deliver` job: one attempt per run, then a planned wait until the next. */
  job(): JobDefinition<'webhook.deliver'> {
    return {
      run: async (job, { signal, owner }) => {
        const outcome = await this.attempt(job.payload.deliveryId, signal, { id: job.id, owner });
        if (outcome?.retryInMs != null) return { retryIn: outcome.retryInMs };
        // The record deleted the job: no completion left to write.
        if (outcome?.jobDone === true) return { completed: true };
      },
      // A slow receiver may hold only so many slots; the runtime keeps its other deliveries
      // waiting until one of its own finishes. One that answers quickly may have up to half the
      // slots: more attempts end together, and are recorded together (groups.ts).
      group: {
        by: 'tenantId',
        limit: this.config.maxInFlightPerTenant,
        burst: { limit: Math.floor(this.config.concurrency / 2), whileUnderMs: QUICK_RECEIVER_MS },
      },
      // The job is deleted after this: a delivery still pending would never be attempted again.
      exhausted: async (job, error) => {
        const message = errorMessage(error);
        const reason = storableText(`abandoned after ${job.attempts} failed runs of its delivery job: ${message}`.slice(0, 2000));
        const abandoned = await abandonDelivery(this.sql, job.payload.deliveryId, reason);
        if (abandoned !== undefined) this.log.warn('webhook delivery abandoned: its job kept failing', { tenant: abandoned.tenantId, delivery: abandoned.id, error: reason });
      },
    };
  }
}

type Recorded = { delivery: RecordedDelivery; applied: boolean; jobDone: boolean };

/**
 * recordAttempts for a batch that may hold two attempts of one delivery (it cannot on one
 * instance, whose runtime never runs a job twice at once, but the statement needs distinct
 * ids): each further attempt of a delivery goes into a later statement, in order.
 */
async function recordDistinct(sql: Sql, attempts: AttemptToRecord[]): Promise<Map<AttemptToRecord, Recorded>> {
  const out = new Map<AttemptToRecord, Recorded>();
  let left = attempts;
  while (left.length > 0) {
    const seen = new Set<string>();
    const now: AttemptToRecord[] = [];
    const later: AttemptToRecord[] = [];
    for (const a of left) {
      if (seen.has(a.d.id)) later.push(a);
      else {
        seen.add(a.d.id);
        now.push(a);
      }
    }
    const recorded = await recordAttempts(sql, now);
    for (const a of now) {
      const r = recorded.get(a.d.id);
      if (r !== undefined) out.set(a, r);
    }
    left = later;
  }
  return out;
}

/** The answer's text and the error as PostgreSQL text can store them (no NUL, no lone surrogate). */
function storable(r: AttemptResult): AttemptResult {
  return { ...r, error: r.error === null ? null : storableText(r.error), responseBody: storableText(r.responseBody) };
}
