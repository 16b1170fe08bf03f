// Webhooks: N ecf.status_update events recorded with outbox.record (each becomes a
// delivery, as in the service), committed at once, then delivered by the service (its own
// process, workers on) to a loopback receiver in another process that answers 204. The
// receiver times the first and last POST; the service's RSS is sampled meanwhile. The
// baseline is the same receiver driven by wrk at the service's delivery concurrency.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.ts';
import { deriveKeys } from '../../src/crypto/master-key.ts';
import { EventOutbox } from '../../src/events/outbox.ts';
import { createLogger } from '../../src/log.ts';
import { DeliveryEngine } from '../../src/webhooks/delivery.ts';
import { WebhookSettings } from '../../src/webhooks/settings.ts';
import { createDatabase } from './lib/database.ts';
import { BENCH_MASTER_KEY, cpuMsOf, rssOf, sampleRss, sleep, startPeer, startService, type PeerProcess, type ServiceProcess } from './lib/processes.ts';
import { mib, print, round, setting, verdict } from './lib/report.ts';
import { registerTenant, setWebhook } from './lib/tenants.ts';
import { describeWrk, wrk } from './lib/wrk.ts';

const DELIVERIES = setting('BENCH_WEBHOOK_DELIVERIES', 10_000);
const TENANTS = setting('BENCH_WEBHOOK_TENANTS', 10);
const DURATION = setting('BENCH_DURATION_SEC', 10);
const TARGET = 1000;
const RECORD_IN_FLIGHT = 200;
const defaults = loadConfig({});

interface ReceiverStats {
  count: number;
  first: number | null;
  last: number | null;
}

async function stats(receiver: string): Promise<ReceiverStats> {
  return (await (await fetch(`${receiver}/stats`)).json()) as ReceiverStats;
}

const db = await createDatabase('webhooks');
let receiver: PeerProcess | null = null;
let service: ServiceProcess | null = null;
try {
  receiver = await startPeer('receiver');
  const receiverUrl = `http://127.0.0.1:${String(receiver.ready.port)}`;
  service = await startService({ DATABASE_URL: db.url, LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const svc = service;
  const tenants = await Promise.all(Array.from({ length: TENANTS }, () => registerTenant(svc.url)));
  for (const t of tenants) await setWebhook(svc.url, t, `${receiverUrl}/hook`);

  // The events are recorded here, through the service's own outbox and delivery engine, on
  // its database: the same rows an emit or a status change would write.
  const { sql } = await db.open(4);
  const outbox = new EventOutbox();
  const settings = new WebhookSettings(sql, deriveKeys(Buffer.from(BENCH_MASTER_KEY, 'hex'))['webhook-secrets'], defaults.webhooks);
  outbox.onEvent(new DeliveryEngine(sql, settings, defaults.webhooks, 'bench', createLogger('silent')).onEvent);

  await sleep(1000);
  const rssIdle = await rssOf(svc.pid);
  await fetch(`${receiverUrl}/reset`, { method: 'POST' });
  const sampler = sampleRss(svc.pid);
  const cpuBefore = await cpuMsOf(svc.pid);
  const recordStarted = performance.now();
  await sql.begin(async (tx) => {
    for (let i = 0; i < DELIVERIES; i += RECORD_IN_FLIGHT) {
      await Promise.all(Array.from({ length: Math.min(RECORD_IN_FLIGHT, DELIVERIES - i) }, (_, j) => {
        const n = i + j;
        const tenant = tenants[n % TENANTS];
        return outbox.record(tx, tenant?.tenantId ?? 0, 'ecf.status_update', {
          internalTrackId: randomUUID(), encf: `E31${String(n + 1).padStart(10, '0')}`, estado: 'aceptado',
          dgiiCode: '1', dgiiMessage: 'Aceptado', trackId: randomUUID(), timestamp: new Date().toISOString(),
        });
      }));
    }
  });
  const committed = performance.now();

  const deadline = Date.now() + 60_000 + DELIVERIES * 20;
  let seen = await stats(receiverUrl);
  while (seen.count < DELIVERIES && Date.now() < deadline) {
    await sleep(100);
    seen = await stats(receiverUrl);
  }
  let delivered = 0;
  while (Date.now() < deadline) {
    delivered = (await sql<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where status = 'delivered'`)[0]?.n ?? 0;
    if (delivered >= DELIVERIES) break;
    await sleep(100);
  }
  const allDelivered = performance.now();
  const cpuMs = (await cpuMsOf(svc.pid)) - cpuBefore;
  const rss = await sampler.stop();
  const windowMs = (seen.last ?? 0) - (seen.first ?? 0);
  const rate = DELIVERIES / (windowMs / 1000);
  const endToEnd = DELIVERIES / ((allDelivered - committed) / 1000);

  await fetch(`${receiverUrl}/reset`, { method: 'POST' });
  const load = { connections: defaults.webhooks.concurrency, durationSec: DURATION };
  await wrk({ ...load, durationSec: 3, url: `${receiverUrl}/hook`, script: 'webhook.lua' }); // warm-up
  const ceiling = await wrk({ ...load, url: `${receiverUrl}/hook`, script: 'webhook.lua' });

  const data = {
    deliveries: DELIVERIES, tenants: TENANTS, recordSec: round((committed - recordStarted) / 1000, 1),
    perSec: round(rate, 0), endToEndPerSec: round(endToEnd, 0), receivedPosts: seen.count, deliveredRows: delivered,
    cpuMsPerDelivery: round(cpuMs / DELIVERIES, 3),
    rssMiB: { idle: mib(rssIdle), peak: mib(rss.peak), after: mib(rss.last) },
    receiverCeiling: { rps: round(ceiling.rps, 0), p50Ms: round(ceiling.latencyMs.p50, 2), p99Ms: round(ceiling.latencyMs.p99, 2), errors: ceiling.errors },
    ratio: round(rate / ceiling.rps, 3),
    target: TARGET, met: rate >= TARGET && delivered >= DELIVERIES,
  };
  print({
    bench: 'webhooks',
    title: `Webhooks: ${DELIVERIES.toLocaleString('en-US')} deliveries to a loopback receiver (204) vs the receiver's ceiling`,
    notes: [
      `service: own process, NODE_ENV=production, LOG_LEVEL=info → /dev/null (deliveries write no per-attempt log line; the access log is not on this path), WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`,
      `delivery settings (defaults): WEBHOOK_CONCURRENCY=${defaults.webhooks.concurrency}, WEBHOOK_MAX_IN_FLIGHT_PER_TENANT=${defaults.webhooks.maxInFlightPerTenant}, WEBHOOK_POLL_INTERVAL_MS=${defaults.webhooks.pollIntervalMs}; ${TENANTS} tenants, events round-robin, each delivery signed (X-ECF-Signature, a secret per tenant)`,
      `the ${DELIVERIES.toLocaleString('en-US')} events were recorded with outbox.record in one transaction (${data.recordSec} s, from the benchmark process), so all become due at once`,
      'deliveries/s: deliveries ÷ time from the receiver\'s first to its last POST; end to end: from the commit to every row delivered (includes the first poll, ≤ 1 s)',
      `baseline: ${describeWrk(load)} --latency posting the same body and headers (wrk/webhook.lua) straight to the receiver`,
      `target: ≥ ${TARGET} deliveries/s`,
    ],
    columns: ['run', 'per s', 'ratio', 'RSS idle MiB', 'RSS peak MiB', 'CPU ms each', `target ≥ ${TARGET}/s`],
    rows: [
      ['service deliveries', data.perSec, data.ratio, data.rssMiB.idle, data.rssMiB.peak, data.cpuMsPerDelivery, verdict(data.met)],
      ['service, end to end', data.endToEndPerSec, null, null, null, null, null],
      ['wrk → receiver', data.receiverCeiling.rps, 1, null, null, null, '(ceiling)'],
    ],
    data,
    headlines: [
      { figure: 'webhook deliveries/s', value: `${data.perSec.toLocaleString('en-US')} (receiver ceiling ${data.receiverCeiling.rps.toLocaleString('en-US')}/s; RSS peak ${data.rssMiB.peak} MiB)`, target: `≥ ${TARGET}/s`, met: data.met },
    ],
  });
} finally {
  await service?.stop();
  await receiver?.stop();
  await db.drop();
}
