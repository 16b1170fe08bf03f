// Webhooks: N ecf.status_update events recorded with outbox.record (each becomes a
// delivery, as in the service), committed at once, then delivered by the service (its own
// process, workers on) to a loopback receiver in another process that answers 204. The
// receiver times the first and last POST; the service's RSS is sampled meanwhile. Two
// baselines: the same receiver driven by wrk at the service's delivery concurrency (the
// ceiling), and the service's code of an earlier commit (BENCH_WEBHOOK_BASELINE, by default
// the code as issue 16 found it), measured in the same run, rounds interleaved, each on a
// fresh database: issue 16 asks for twice its deliveries per second.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.ts';
import { deriveKeys } from '../../src/crypto/master-key.ts';
import { EventOutbox } from '../../src/events/outbox.ts';
import { createLogger } from '../../src/log.ts';
import { DeliveryEngine } from '../../src/webhooks/delivery.ts';
import { WebhookSettings } from '../../src/webhooks/settings.ts';
import { checkoutBaseline, type Baseline } from './lib/baseline.ts';
import { createDatabase } from './lib/database.ts';
import { BENCH_MASTER_KEY, cpuMsOf, rssOf, sampleRss, sleep, startPeer, startService, type PeerProcess } from './lib/processes.ts';
import { medianBy, mib, print, round, setting, verdict } from './lib/report.ts';
import { registerTenant, setWebhook } from './lib/tenants.ts';
import { describeWrk, wrk } from './lib/wrk.ts';

const DELIVERIES = setting('BENCH_WEBHOOK_DELIVERIES', 10_000);
const TENANTS = setting('BENCH_WEBHOOK_TENANTS', 10);
const DURATION = setting('BENCH_DURATION_SEC', 10);
const TARGET = 1000;
const ROUNDS = setting('BENCH_ROUNDS', 3);
/** Deliveries per second ÷ the earlier code's, in the same run (issue 16). */
const BASELINE_TARGET = 2;
/**
 * The earlier code: a commit or a checkout directory; "none" skips it. By default the commit
 * before issue 16's work (the peers' benchmarks came in right after it).
 */
const BASELINE = process.env.BENCH_WEBHOOK_BASELINE ?? '5274487';
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

interface Measured {
  perSec: number;
  endToEndPerSec: number;
  receivedPosts: number;
  deliveredRows: number;
  recordSec: number;
  cpuMsPerDelivery: number;
  rssMiB: { idle: number; peak: number; after: number };
}

/** One round: a fresh database, the service of `root` started on it, DELIVERIES events recorded at once and delivered. */
async function measure(receiverUrl: string, root: string | undefined): Promise<Measured> {
  const db = await createDatabase('webhooks');
  const service = await startService({ DATABASE_URL: db.url, LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, root === undefined ? {} : { root });
  try {
    const svc = service;
    const tenants = await Promise.all(Array.from({ length: TENANTS }, () => registerTenant(svc.url)));
    for (const t of tenants) await setWebhook(svc.url, t, `${receiverUrl}/hook`);

    // The events are recorded here, through the service's own outbox and delivery engine, on
    // its database: the same rows an emit or a status change would write.
    const { sql } = await db.open(4);
    const outbox = new EventOutbox();
    const settings = new WebhookSettings(sql, deriveKeys(Buffer.from(BENCH_MASTER_KEY, 'hex'))['webhook-secrets'], defaults.webhooks);
    outbox.onEventInStatement(new DeliveryEngine(sql, settings, defaults.webhooks, 'bench', createLogger('silent')).onEvent);

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
    return {
      perSec: round(DELIVERIES / (windowMs / 1000), 0),
      endToEndPerSec: round(DELIVERIES / ((allDelivered - committed) / 1000), 0),
      receivedPosts: seen.count,
      deliveredRows: delivered,
      recordSec: round((committed - recordStarted) / 1000, 1),
      cpuMsPerDelivery: round(cpuMs / DELIVERIES, 3),
      rssMiB: { idle: mib(rssIdle), peak: mib(rss.peak), after: mib(rss.last) },
    };
  } finally {
    await service.stop();
    await db.drop();
  }
}

let receiver: PeerProcess | null = null;
let baseline: Baseline | null = null;
try {
  receiver = await startPeer('receiver');
  const receiverUrl = `http://127.0.0.1:${String(receiver.ready.port)}`;
  // Without git (an unpacked release), or with an unknown commit, the earlier code is not measured.
  baseline = BASELINE === 'none' ? null : await checkoutBaseline(BASELINE).catch((err: unknown) => {
    process.stderr.write(`earlier code not measured: ${err instanceof Error ? err.message : String(err)}\n`);
    return null;
  });
  const current: Measured[] = [];
  const earlier: Measured[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (baseline !== null) earlier.push(await measure(receiverUrl, baseline.root));
    current.push(await measure(receiverUrl, undefined));
  }
  const m = medianBy(current, (x) => x.perSec);
  const before = earlier.length === 0 ? null : medianBy(earlier, (x) => x.perSec);
  await fetch(`${receiverUrl}/reset`, { method: 'POST' });
  const load = { connections: defaults.webhooks.concurrency, durationSec: DURATION };
  await wrk({ ...load, durationSec: 3, url: `${receiverUrl}/hook`, script: 'webhook.lua' }); // warm-up
  const ceiling = await wrk({ ...load, url: `${receiverUrl}/hook`, script: 'webhook.lua' });

  const complete = (x: Measured) => x.deliveredRows >= DELIVERIES;
  const vsBefore = before === null ? null : round(m.perSec / before.perSec, 2);
  const data = {
    deliveries: DELIVERIES, tenants: TENANTS, rounds: ROUNDS, ...m,
    roundsPerSec: current.map((x) => x.perSec),
    receiverCeiling: { rps: round(ceiling.rps, 0), p50Ms: round(ceiling.latencyMs.p50, 2), p99Ms: round(ceiling.latencyMs.p99, 2), errors: ceiling.errors },
    ratio: round(m.perSec / ceiling.rps, 3),
    target: TARGET, met: m.perSec >= TARGET && current.every(complete),
    baseline: before === null || baseline === null ? null : { code: baseline.label, ...before, roundsPerSec: earlier.map((x) => x.perSec) },
    vsBaseline: vsBefore, baselineTarget: BASELINE_TARGET,
    baselineMet: before === null ? null : (vsBefore ?? 0) >= BASELINE_TARGET && current.every(complete) && earlier.every(complete),
  };
  print({
    bench: 'webhooks',
    title: `Webhooks: ${DELIVERIES.toLocaleString('en-US')} deliveries to a loopback receiver (204) vs the receiver's ceiling and the earlier code`,
    notes: [
      `service: own process, NODE_ENV=production, LOG_LEVEL=info → /dev/null (deliveries write no per-attempt log line; the access log is not on this path), WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`,
      `delivery settings (defaults): WEBHOOK_CONCURRENCY=${defaults.webhooks.concurrency}, WEBHOOK_MAX_IN_FLIGHT_PER_TENANT=${defaults.webhooks.maxInFlightPerTenant}, WEBHOOK_POLL_INTERVAL_MS=${defaults.webhooks.pollIntervalMs}; ${TENANTS} tenants, events round-robin, each delivery signed (X-ECF-Signature, a secret per tenant)`,
      `each round: a fresh database, the ${DELIVERIES.toLocaleString('en-US')} events recorded with outbox.record in one transaction (${data.recordSec} s, from the benchmark process), so all become due at once; ${ROUNDS} rounds, median`,
      'deliveries/s: deliveries ÷ time from the receiver\'s first to its last POST; end to end: from the commit to every row delivered (includes the first poll, ≤ 1 s)',
      `ceiling: ${describeWrk(load)} --latency posting the same body and headers (wrk/webhook.lua) straight to the receiver`,
      data.baseline === null ? `earlier code: not measured (BENCH_WEBHOOK_BASELINE=${BASELINE})` : `earlier code: ${data.baseline.code} (BENCH_WEBHOOK_BASELINE), rounds interleaved with this code's: ${data.baseline.roundsPerSec.join(' / ')} against ${data.roundsPerSec.join(' / ')} per s`,
      `targets: ≥ ${TARGET} deliveries/s; ≥ ${BASELINE_TARGET} × the earlier code's`,
    ],
    columns: ['run', 'per s', '÷ ceiling', '÷ earlier', 'RSS idle MiB', 'RSS peak MiB', 'CPU ms each', 'targets'],
    rows: [
      ['service deliveries', data.perSec, data.ratio, data.vsBaseline, data.rssMiB.idle, data.rssMiB.peak, data.cpuMsPerDelivery, `${verdict(data.met)}${data.baselineMet === null ? '' : ` / ${verdict(data.baselineMet)}`}`],
      ['service, end to end', data.endToEndPerSec, null, null, null, null, null, null],
      ...(data.baseline === null ? [] : [['earlier code deliveries', data.baseline.perSec, round(data.baseline.perSec / ceiling.rps, 3), 1, data.baseline.rssMiB.idle, data.baseline.rssMiB.peak, data.baseline.cpuMsPerDelivery, '(baseline)']]),
      ['wrk → receiver', data.receiverCeiling.rps, 1, null, null, null, null, '(ceiling)'],
    ],
    data,
    headlines: [
      { figure: 'webhook deliveries/s', value: `${data.perSec.toLocaleString('en-US')} (receiver ceiling ${data.receiverCeiling.rps.toLocaleString('en-US')}/s; RSS peak ${data.rssMiB.peak} MiB)`, target: `≥ ${TARGET}/s`, met: data.met },
      ...(data.baseline === null ? [] : [{ figure: 'webhook deliveries/s ÷ earlier code', value: `${data.vsBaseline} (${data.perSec.toLocaleString('en-US')} vs ${data.baseline.perSec.toLocaleString('en-US')}/s; CPU ${data.cpuMsPerDelivery} vs ${data.baseline.cpuMsPerDelivery} ms each)`, target: `≥ ${BASELINE_TARGET}`, met: data.baselineMet }]),
    ],
  });
} finally {
  await receiver?.stop();
  await baseline?.dispose();
}
