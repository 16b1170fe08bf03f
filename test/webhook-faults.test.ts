import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { seal } from '../src/crypto/aead.ts';
import { deriveKeys } from '../src/crypto/master-key.ts';
import { storableText } from '../src/lib/pg-text.ts';
import { JOB_KINDS } from '../src/queue/kinds.ts';
import { completeJob } from '../src/queue/queries.ts';
import { recordAttempts, type AttemptToRecord } from '../src/webhooks/queries.ts';
import { queueDeliveriesOn } from './helpers/deliveries.ts';
import { client, newTenant } from './helpers/http.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { startReceiver, type Answer, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// Deliveries under faults: receivers answering bytes PostgreSQL cannot store, secrets that no
// longer decrypt, jobs that keep failing, redeliveries racing an attempt in flight, and the
// per-process bound on deliveries in flight.

const CONCURRENCY = 3;
let t: TestService;
const receivers: Receiver[] = [];
before(async () => {
  t = await startTestService({
    env: {
      ...FAST_PIPELINE,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_RETRY_DELAYS_MS: '50,50,50,50,50',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000',
    },
  });
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

async function setup(respond: (index: number) => Answer) {
  const a = await newTenant(t.url);
  const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
  const r = await startReceiver({ respond: (_req, i) => respond(i) });
  receivers.push(r);
  assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: r.url } })).status, 200);
  return { a, api, r };
}

async function finalDelivery(api: ReturnType<typeof client>, id: string) {
  return waitFor(async () => {
    const d = (await api.get(`/api/webhooks/deliveries/${id}`)).body.data;
    return d.status !== 'pending' ? d : undefined;
  });
}

/** A promise a test resolves when it wants a held answer to go out. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** Events, deliveries and their due jobs written directly, as the outbox would, for `t`. */
function queueDeliveries(tenantId: number, count: number, job: { attempts?: number } = {}): Promise<string[]> {
  return queueDeliveriesOn(t, tenantId, count, job);
}

describe('answers and failures PostgreSQL cannot store as they are', () => {
  test('storable text replaces NUL and lone surrogates, keeps the rest, and PostgreSQL stores it', async () => {
    const raw = 'a\u0000b \uD800c \uDC00d \uD83D\uDE00 ñ';
    await assert.rejects(t.sql`select ${raw}::text as v`, 'the raw text is refused');
    const safe = storableText(raw);
    assert.equal(safe, 'a\uFFFDb \uFFFDc \uFFFDd \uD83D\uDE00 ñ');
    const [row] = await t.sql`select ${safe}::text as v`;
    assert.equal(row?.v, safe);
  });

  test('a receiver answering NUL bytes and invalid UTF-8 gets recorded attempts, and the test webhook answers 200', async () => {
    const { api, r } = await setup((i) => (i === 0 ? { status: 500, body: Buffer.from([0x62, 0x61, 0x64, 0x00, 0xff]) } : { status: 200, body: 'ok\0' }));
    const res = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.delivery.status, 'pending');
    assert.equal(res.body.data.attempt.statusCode, 500);
    assert.equal(res.body.data.attempt.responseBody, 'bad\uFFFD\uFFFD');
    const d = await finalDelivery(api, res.body.data.delivery.id);
    assert.equal(d.status, 'delivered');
    assert.deepEqual(d.attempts.map((x: { statusCode: number; responseBody: string }) => [x.statusCode, x.responseBody]), [[500, 'bad\uFFFD\uFFFD'], [200, 'ok\uFFFD']]);
    assert.deepEqual(r.received.map((x) => x.headers['x-ecf-delivery-attempt']), ['1', '2'], 'the retry followed the webhook schedule, numbered');
  });

  test('a delivery whose secret no longer decrypts (another master key) is never sent and ends abandoned with a clear error', async () => {
    const { a, api, r } = await setup(() => ({ status: 200 }));
    const otherKey = deriveKeys(Buffer.alloc(32, 7))['webhook-secrets'];
    const sealed = seal(otherKey, Buffer.from('whsec_sealed_under_the_previous_master_key'), `webhook-secret:${a.tenantId}`);
    await t.sql`update webhook_settings set secret_sealed = ${sealed} where tenant_id = ${a.tenantId}`;
    const res = await api.post('/api/webhooks/test', { json: {} });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.attempt.ok, false);
    assert.match(res.body.data.attempt.error, /webhook secret cannot be decrypted/);
    const d = await finalDelivery(api, res.body.data.delivery.id);
    assert.equal(d.status, 'abandoned');
    assert.equal(d.attempts.length, 6, 'the usual schedule, then abandoned');
    assert.match(d.lastError, /webhook secret cannot be decrypted.*PUT \/api\/webhooks\/settings/);
    assert.equal(r.received.length, 0, 'never sent unsigned');
  });

  test('a delivery job that fails for the last time marks its delivery abandoned with the reason', async () => {
    const { a, api, r } = await setup(() => ({ status: 200 }));
    // Recording this tenant's attempts fails inside the database, every time.
    await t.sql.unsafe(`create or replace function refuse_attempts() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from webhook_deliveries where id = new.delivery_id and tenant_id = ${a.tenantId}) then
          raise exception 'attempts of this delivery cannot be stored';
        end if;
        return new;
      end $$`);
    await t.sql.unsafe('create trigger refuse_attempts before insert on webhook_attempts for each row execute function refuse_attempts()');
    const [deliveryId] = await queueDeliveries(a.tenantId, 1, { attempts: JOB_KINDS['webhook.deliver'].maxAttempts - 1 });
    assert.ok(deliveryId);
    try {
      const d = await finalDelivery(api, deliveryId);
      assert.equal(d.status, 'abandoned');
      assert.match(d.lastError, /^abandoned after \d+ failed runs of its delivery job: .*attempts of this delivery cannot be stored/);
      assert.equal(d.nextAttemptAt, null);
      // The exhausted job is deleted with its batch of finished jobs, just after the delivery is marked.
      await waitFor(async () => {
        const [job] = await t.sql<{ n: number }[]>`select count(*)::int as n from jobs where unique_key = ${'delivery:' + deliveryId}`;
        return job?.n === 0 || undefined;
      }, 5_000, 'the exhausted job deleted');
      assert.equal(r.received.length, 1);
    } finally {
      await t.sql.unsafe('drop trigger refuse_attempts on webhook_attempts');
    }
  });
});

describe('redelivery racing an attempt in flight', () => {
  test('a redeliver during the last attempt of a series starts the new series; the old attempt is recorded but does not abandon', async () => {
    const held = gate();
    const { api, r } = await setup((i) => (i < 5 ? { status: 500 } : i === 5 ? { status: 500, gate: held.wait } : { status: 200 }));
    const first = await api.post('/api/webhooks/test', { json: {} });
    const id = first.body.data.delivery.id;
    await waitFor(async () => r.received.length === 6);
    const re = await api.post(`/api/webhooks/deliveries/${id}/redeliver`);
    assert.equal(re.status, 202);
    assert.equal(re.body.data.status, 'pending');
    held.open();
    const d = await finalDelivery(api, id);
    assert.equal(d.status, 'delivered');
    assert.deepEqual(d.attempts.map((x: { number: number; statusCode: number }) => [x.number, x.statusCode]), [[1, 500], [2, 500], [3, 500], [4, 500], [5, 500], [6, 500], [7, 200]]);
    assert.deepEqual(r.received.map((x) => x.headers['x-ecf-delivery-attempt']), ['1', '2', '3', '4', '5', '6', '7']);
  });

  test('a redeliver after an attempt delivered, while its job is still held, is attempted once that run ends', async () => {
    const { a, api, r } = await setup(() => ({ status: 204 }));
    const [deliveryId] = await t.sql.begin(async (tx) => {
      const eventId = randomUUID();
      const d = randomUUID();
      await tx`insert into events (id, tenant_id, kind, body) values (${eventId}, ${a.tenantId}, 'ecf.status_update', '{"event":"ecf.status_update"}')`;
      // Another worker's run: its attempt was recorded as delivered, its job not yet completed.
      await tx`insert into webhook_deliveries (id, tenant_id, event_id, event, status, url, attempt_count, series_attempts, last_attempt_ok) values (${d}, ${a.tenantId}, ${eventId}, 'ecf.status_update', 'delivered', ${r.url}, 1, 1, true)`;
      await tx`insert into jobs (kind, payload, unique_key, attempts, locked_by, locked_until) values ('webhook.deliver', ${tx.json({ deliveryId: d, tenantId: a.tenantId })}, ${'delivery:' + d}, 1, 'another-worker', now() + interval '1 hour')`;
      return [d];
    });
    assert.equal((await api.post(`/api/webhooks/deliveries/${deliveryId}/redeliver`)).status, 202);
    // That run now ends as it would after a 2xx: its job is completed.
    const [job] = await t.sql<{ id: string }[]>`select id from jobs where unique_key = ${'delivery:' + deliveryId}`;
    assert.ok(job);
    assert.equal(await completeJob(t.sql, String(job.id), 'another-worker'), true);
    t.service.deliveries.nudge();
    const d = await waitFor(async () => {
      const x = (await api.get(`/api/webhooks/deliveries/${deliveryId}`)).body.data;
      return x.status === 'delivered' && x.attempts.length === 1 ? x : undefined;
    });
    assert.equal(r.received.length, 1, 'the redelivery was sent, not lost with the finished job');
    assert.equal(r.received[0]?.headers['x-ecf-delivery-attempt'], '2');
    assert.equal(d.attempts[0].statusCode, 204);
  });

  test('status=failed keeps a redelivered delivery whose attempts failed until one succeeds', async () => {
    const held = gate();
    let failing = true;
    const { api } = await setup(() => (failing ? { status: 500 } : { status: 200, gate: held.wait }));
    const first = await api.post('/api/webhooks/test', { json: {} });
    const id = first.body.data.delivery.id;
    assert.equal((await finalDelivery(api, id)).status, 'abandoned');
    failing = false;
    assert.equal((await api.post(`/api/webhooks/deliveries/${id}/redeliver`)).status, 202);
    const ids = async (q: string) => (await api.get(`/api/webhooks/deliveries?${q}`)).body.data.items.map((x: { id: string }) => x.id);
    // The new series' first attempt is held by the receiver: the delivery is pending, last attempt failed.
    assert.deepEqual(await ids('status=pending'), [id]);
    assert.deepEqual(await ids('status=failed'), [id]);
    held.open();
    assert.equal((await finalDelivery(api, id)).status, 'delivered');
    assert.deepEqual(await ids('status=failed'), []);
  });
});

describe('an attempt whose job another worker took over', () => {
  test('is cut and not recorded, and the job is left to its new owner', async () => {
    // A lease of one second is renewed every third of it, so the takeover is noticed quickly.
    const fast = await startTestService({ env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', QUEUE_LEASE_MS: '1000', WEBHOOK_TIMEOUT_MS: '20000' } });
    let cut = false;
    const r = await startReceiver({ respond: () => 'hang' });
    receivers.push(r);
    try {
      const a = await newTenant(fast.url);
      const api = client(fast.url, { authorization: `Bearer ${a.accessToken}` });
      assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: r.url } })).status, 200);
      const [id] = await queueDeliveriesOn(fast, a.tenantId, 1);
      await waitFor(async () => r.received.length === 1);
      const socketClosed = new Promise<void>((resolve) => {
        const check = (): void => {
          if (r.inFlight === 0) resolve();
          else setTimeout(check, 20);
        };
        check();
      }).then(() => (cut = true));
      await fast.sql`update jobs set locked_by = 'another-worker', locked_until = now() + interval '1 hour' where unique_key = ${'delivery:' + id}`;
      await Promise.race([socketClosed, new Promise((resolve) => setTimeout(resolve, 5000))]);
      assert.ok(cut, 'the request in flight was cut within a few renewals, long before the 20 s timeout');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const d = (await api.get(`/api/webhooks/deliveries/${id}`)).body.data;
      assert.equal(d.status, 'pending');
      assert.deepEqual(d.attempts, [], 'the cut attempt is not recorded: its new owner makes it');
      const [job] = await fast.sql`select locked_by, attempts, last_error from jobs where unique_key = ${'delivery:' + id}`;
      assert.equal(job?.lockedBy, 'another-worker');
      assert.equal(job?.lastError, null, 'no failure was recorded against the job');
    } finally {
      await fast.close();
    }
  });
});

describe('an attempt that finishes its delivery', () => {
  test('deletes the delivery\'s job with its record only while the run\'s owner holds it, no rerun was asked and the delivery is finished', async () => {
    const a = await newTenant(t.url);
    const cases = [
      { name: 'delivered, own lease', lockedBy: 'worker-a', rerun: false, ok: true, jobDone: true },
      { name: 'delivered, lease taken over', lockedBy: 'worker-b', rerun: false, ok: true, jobDone: false },
      { name: 'delivered, rerun asked', lockedBy: 'worker-a', rerun: true, ok: true, jobDone: false },
      { name: 'failed, retries left', lockedBy: 'worker-a', rerun: false, ok: false, jobDone: false },
    ];
    const rows = await Promise.all(cases.map((c) => t.sql.begin(async (tx) => {
      const eventId = randomUUID();
      const deliveryId = randomUUID();
      await tx`insert into events (id, tenant_id, kind, body) values (${eventId}, ${a.tenantId}, 'ecf.status_update', '{"event":"ecf.status_update"}')`;
      await tx`insert into webhook_deliveries (id, tenant_id, event_id, event, status, url) values (${deliveryId}, ${a.tenantId}, ${eventId}, 'ecf.status_update', 'pending', 'https://example.test/hook')`;
      const [job] = await tx<{ id: string }[]>`
        insert into jobs (kind, payload, unique_key, attempts, locked_by, locked_until, rerun)
        values ('webhook.deliver', ${tx.json({ deliveryId, tenantId: a.tenantId })}, ${'delivery:' + deliveryId}, 1, ${c.lockedBy}, now() + interval '1 hour', ${c.rerun})
        returning id`;
      return { deliveryId, jobId: String(job?.id) };
    })));
    const at = new Date();
    const attempts: AttemptToRecord[] = cases.map((c, i) => ({
      d: { id: rows[i]!.deliveryId, series: 0 },
      job: { id: rows[i]!.jobId, owner: 'worker-a' },
      url: 'https://example.test/hook', at,
      r: { ok: c.ok, statusCode: c.ok ? 204 : 500, durationMs: 3, error: c.ok ? null : 'HTTP 500', responseBody: '' },
      next: c.ok ? { status: 'delivered', nextAttemptAt: null } : { status: 'pending', nextAttemptAt: new Date(at.getTime() + 60_000) },
    }));
    const recorded = await recordAttempts(t.sql, attempts);
    for (const [i, c] of cases.entries()) {
      const { deliveryId, jobId } = rows[i]!;
      assert.equal(recorded.get(deliveryId)?.jobDone, c.jobDone, c.name);
      const [job] = await t.sql`select locked_by from jobs where id = ${jobId}`;
      assert.equal(job === undefined, c.jobDone, `${c.name}: the job is ${c.jobDone ? 'gone' : 'still there'}`);
      const [attemptRow] = await t.sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts where delivery_id = ${deliveryId}`;
      assert.equal(attemptRow?.n, 1, `${c.name}: the attempt is recorded either way`);
    }
  });
});

describe('concurrency', () => {
  test('WEBHOOK_CONCURRENCY bounds the deliveries in flight in one process', async () => {
    const { a, r } = await setup(() => ({ status: 204, delayMs: 250 }));
    await queueDeliveries(a.tenantId, 4 * CONCURRENCY);
    await waitFor(async () => r.received.length === 4 * CONCURRENCY && r.inFlight === 0, 20_000);
    assert.equal(r.maxInFlight, CONCURRENCY);
  });
});
