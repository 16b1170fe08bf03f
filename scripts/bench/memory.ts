// Memory: (1) the service's RSS and V8 heap after a full GC with 1,000 idle keep-alive
// connections held by another process vs with none, next to the same for a bare node:http
// server (what Node itself costs per connection); (2) the rate limiter's map size and heap
// growth after 1M distinct client keys, TokenBucketLimiter driven directly in this process,
// against its cap (RATE_LIMIT_MAX_KEYS).
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '../../src/config.ts';
import { TokenBucketLimiter } from '../../src/ratelimit/token-bucket.ts';
import { createDatabase } from './lib/database.ts';
import { collectGarbage, GC_PROBE, settledRss, sleep, startPeer, startService, type Child } from './lib/processes.ts';
import { mib, print, round, setting } from './lib/report.ts';
import { registerTenant } from './lib/tenants.ts';
import { wrk } from './lib/wrk.ts';

const CONNECTIONS = setting('BENCH_IDLE_CONNECTIONS', 1000);
const KEYS = setting('BENCH_LIMITER_KEYS', 1_000_000);
const defaults = loadConfig({});

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * The service's heap and RSS right after a full garbage collection. Without a forced
 * collection the figures move by tens of MiB with GC timing, more than 1,000 connections cost.
 */
async function collected(server: Child): Promise<Reading> {
  const { rss, heapUsed } = await collectGarbage(server);
  return { rss, heap: heapUsed };
}

interface Reading {
  rss: number;
  heap: number | null;
}

/** RSS (and heap) before and with CONNECTIONS idle keep-alive connections; the holder checks they stayed open. */
async function withIdleConnections(port: number, read: () => Promise<Reading>) {
  await sleep(2000);
  const none = await read();
  const holder = await startPeer('idle-connections', { IDLE_TARGET: `127.0.0.1:${port}`, IDLE_CONNECTIONS: String(CONNECTIONS) }, 120_000);
  try {
    await sleep(2000);
    const held = await read();
    const open = Number(holder.lines.at(-1)?.open ?? holder.ready.open);
    return { rssNone: none.rss, rssHeld: held.rss, heapNone: none.heap, heapHeld: held.heap, open };
  } finally {
    await holder.stop();
  }
}

function limiterGrowth() {
  const cap = defaults.rateLimits.maxKeys;
  gc();
  const before = process.memoryUsage().heapUsed;
  const limiter = new TokenBucketLimiter(defaults.rateLimits.publicAuthPerMinute, 60_000, cap);
  const now = Date.now();
  const started = performance.now();
  // Distinct client IPs, all within one window: none has expired, so only the cap bounds the map.
  for (let i = 0; i < KEYS; i++) limiter.take(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, now);
  const nsPerTake = ((performance.now() - started) * 1e6) / KEYS;
  gc();
  const growth = process.memoryUsage().heapUsed - before;
  return { cap, size: limiter.size, heapGrowthBytes: growth, bytesPerKey: growth / limiter.size, nsPerTake };
}

/**
 * Cost of one take() in steady state with `keys` clients taking turns (round-robin: the
 * least recently used bucket is always the next one touched), below the cap.
 */
function takeCost(keys: number): number {
  const limiter = new TokenBucketLimiter(1_000_000, 60_000, defaults.rateLimits.maxKeys);
  const names = Array.from({ length: keys }, (_, i) => `tenant-${i}`);
  const now = Date.now();
  for (let i = 0; i < Math.max(keys, 10_000); i++) limiter.take(names[i % keys] as string, now);
  const takes = 50_000;
  const started = performance.now();
  for (let i = 0; i < takes; i++) limiter.take(names[i % keys] as string, now);
  return ((performance.now() - started) * 1e6) / takes;
}

const TAKE_COST_KEYS = [1, 1_000, 10_000, 100_000];
const takeCosts = TAKE_COST_KEYS.map((k) => ({ keys: k, nsPerTake: round(takeCost(k), 0) }));
const limiter = limiterGrowth();
const db = await createDatabase('memory');
const children: Child[] = [];
try {
  // Keep-alive raised so the held connections stay open through the measurement.
  const service = await startService({ DATABASE_URL: db.url, LOG_LEVEL: 'warn', HTTP_KEEP_ALIVE_TIMEOUT_MS: '600000' }, { nodeArgs: ['--import', GC_PROBE] });
  children.push(service);
  const hello = await startPeer('hello');
  children.push(hello);
  const tenant = await registerTenant(service.url);
  // Warm both up first, so that "none" already includes compiled code and pools.
  await wrk({ url: `${service.url}/api/whoami`, connections: 64, durationSec: 3, headers: { 'x-api-key': tenant.apiKey } });
  await wrk({ url: `http://127.0.0.1:${String(hello.ready.port)}/`, connections: 64, durationSec: 3 });
  const svc = await withIdleConnections(Number(new URL(service.url).port), () => collected(service));
  const bare = await withIdleConnections(Number(hello.ready.port), async () => ({ rss: await settledRss(hello.pid), heap: null }));

  const perConn = (r: { rssNone: number; rssHeld: number }) => round((r.rssHeld - r.rssNone) / CONNECTIONS / 1024, 1);
  const data = {
    connections: CONNECTIONS,
    service: { rssNoneMiB: mib(svc.rssNone), rssHeldMiB: mib(svc.rssHeld), kibPerConnection: perConn(svc), heapNoneMiB: mib(svc.heapNone ?? NaN), heapHeldMiB: mib(svc.heapHeld ?? NaN), stillOpen: svc.open },
    hello: { rssNoneMiB: mib(bare.rssNone), rssHeldMiB: mib(bare.rssHeld), kibPerConnection: perConn(bare), stillOpen: bare.open },
    limiter: { keys: KEYS, cap: limiter.cap, size: limiter.size, heapGrowthMiB: mib(limiter.heapGrowthBytes), bytesPerKey: round(limiter.bytesPerKey, 0), nsPerTake: round(limiter.nsPerTake, 0), takeCosts },
  };
  print({
    bench: 'memory',
    title: `Memory: ${CONNECTIONS.toLocaleString('en-US')} idle keep-alive connections; rate limiter after ${KEYS.toLocaleString('en-US')} distinct keys`,
    notes: [
      'service: own process, NODE_ENV=production, LOG_LEVEL=warn, HTTP_KEEP_ALIVE_TIMEOUT_MS=600000 (raised so idle connections are not closed during the measurement); warmed up with 3 s of wrk first',
      `connections: opened by a separate process (peers/idle-connections.ts), each made one GET /healthz and then idled; the service's RSS and heap are read right after a full GC (a GC probe preloaded into it, SIGUSR2), 2 s after the connections are open (RSS still moves as freed memory goes back to the system, so the heap is the steadier figure); the bare server's RSS is the median of 5 readings`,
      'baseline for connections: the same against a bare node:http hello-world process (Node\'s own cost per socket)',
      `limiter: TokenBucketLimiter(capacity ${defaults.rateLimits.publicAuthPerMinute}, 60 s window, cap RATE_LIMIT_MAX_KEYS=${limiter.cap}) in this process, ${KEYS.toLocaleString('en-US')} distinct IPv4 keys within one window; heap measured after a full GC`,
      'take() cost: 50,000 takes with N keys taking turns (round-robin, below the cap), after filling; the "1 key" row is a single busy tenant',
    ],
    columns: ['measure', 'none', 'with load', 'growth', 'per item'],
    rows: [
      [`service RSS MiB, ${CONNECTIONS} idle conns (${svc.open} still open)`, data.service.rssNoneMiB, data.service.rssHeldMiB, round(data.service.rssHeldMiB - data.service.rssNoneMiB, 1), `${data.service.kibPerConnection} KiB`],
      ['service V8 heap MiB', data.service.heapNoneMiB, data.service.heapHeldMiB, round(data.service.heapHeldMiB - data.service.heapNoneMiB, 1), `${round(((svc.heapHeld ?? 0) - (svc.heapNone ?? 0)) / CONNECTIONS / 1024, 1)} KiB`],
      [`node:http hello RSS MiB (${bare.open} still open)`, data.hello.rssNoneMiB, data.hello.rssHeldMiB, round(data.hello.rssHeldMiB - data.hello.rssNoneMiB, 1), `${data.hello.kibPerConnection} KiB`],
      [`limiter keys (cap ${limiter.cap})`, 0, limiter.size, limiter.size, `${KEYS.toLocaleString('en-US')} offered`],
      ['limiter heap MiB', 0, data.limiter.heapGrowthMiB, data.limiter.heapGrowthMiB, `${data.limiter.bytesPerKey} B/key, ${data.limiter.nsPerTake} ns/take`],
      ...takeCosts.map((t) => [`limiter take() with ${t.keys.toLocaleString('en-US')} key${t.keys === 1 ? '' : 's'} taking turns`, null, null, null, `${t.nsPerTake.toLocaleString('en-US')} ns/take`] as (string | number | null)[]),
    ],
    data,
    headlines: [
      { figure: `heap per idle connection after GC (${CONNECTIONS})`, value: `${round(((svc.heapHeld ?? 0) - (svc.heapNone ?? 0)) / CONNECTIONS / 1024, 1)} KiB (RSS ${data.service.kibPerConnection} KiB; bare node:http RSS ${data.hello.kibPerConnection} KiB)`, target: null, met: null },
      { figure: `limiter after ${KEYS.toLocaleString('en-US')} keys`, value: `${limiter.size.toLocaleString('en-US')} buckets, ${data.limiter.heapGrowthMiB} MiB heap`, target: `≤ cap ${limiter.cap.toLocaleString('en-US')}`, met: limiter.size <= limiter.cap },
      { figure: 'limiter take(), 100,000 keys taking turns', value: `${(takeCosts.at(-1)?.nsPerTake ?? 0).toLocaleString('en-US')} ns (1 key: ${(takeCosts[0]?.nsPerTake ?? 0).toLocaleString('en-US')} ns)`, target: null, met: null },
    ],
  });
} finally {
  await Promise.all(children.map((c) => c.stop()));
  await db.drop();
}
