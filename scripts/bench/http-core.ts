// HTTP core: the service's GET /healthz and GET /api/whoami (API key checked against the
// credential cache, rate limit taken in the `default` scope, JSON envelope, access log)
// against fastify 5 doing the same work (its peer, what a user would pick instead) and a
// bare node:http hello-world (the floor), each in its own process, driven by the same wrk
// settings. Rounds are interleaved (hello, service, fastify, ...) so a noisy moment hurts all
// alike, and the median round of each is reported. Each server's CPU time per request (from
// /proc) is reported too: on a shared machine it moves far less than requests per second. A
// target is met only by a run without a failed request: quick 4xx or 429 answers would be
// fast too.
import { cpus } from 'node:os';
import { createDatabase } from './lib/database.ts';
import { ensurePeerLibs, peerScript } from './lib/peer-libs.ts';
import { cpuMsOf, RAISED_RATE_LIMITS, startPeer, startPeerScript, startService, type Child, type ServiceProcess } from './lib/processes.ts';
import { medianBy, print, round, setting, verdict, type Headline } from './lib/report.ts';
import { failedRequests, non2xxBetween, statusCounts } from './lib/statuses.ts';
import { registerTenant } from './lib/tenants.ts';
import { describeWrk, wrk, type WrkResult } from './lib/wrk.ts';

const DURATION = setting('BENCH_DURATION_SEC', 10);
const ROUNDS = setting('BENCH_ROUNDS', 3);
const CONNECTIONS = setting('BENCH_HTTP_CONNECTIONS', 64);
/** Service ÷ its fastify peer, req/s. */
const TARGET = 1.0;
/** WEB_CONCURRENCY of the scale-out row: one worker per core. */
const CORES = cpus().length;

interface Target {
  name: string;
  logLevel: string;
  url: string;
  pid: number;
  headers: Record<string, string>;
  /** The service process, whose /metrics counts its answers by status; null for a peer. */
  service: ServiceProcess | null;
  route: string;
  /** The index of the fastify target this one is compared with. */
  peer: number | null;
  runs: (WrkResult & { cpuUsPerRequest: number; failed: number })[];
}

await ensurePeerLibs();
const db = await createDatabase('http');
const children: Child[] = [];
try {
  const hello = await startPeer('hello');
  children.push(hello);
  const info = await startService({ DATABASE_URL: db.url, LOG_LEVEL: 'info' });
  children.push(info);
  const warn = await startService({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
  children.push(warn);
  const tenant = await registerTenant(info.url);
  const auth = { 'x-api-key': tenant.apiKey };
  const check = await fetch(`${warn.url}/api/whoami`, { headers: auth });
  if (check.status !== 200) throw new Error(`whoami answered ${check.status}`);
  const scaled = await startService({ DATABASE_URL: db.url, LOG_LEVEL: 'info', WEB_CONCURRENCY: String(CORES) });
  children.push(scaled);
  const fastifyInfo = await startPeerScript(peerScript('fastify-whoami'), { LOG_LEVEL: 'info', API_KEY: tenant.apiKey });
  children.push(fastifyInfo);
  const fastifyOff = await startPeerScript(peerScript('fastify-whoami'), { LOG_LEVEL: 'off', API_KEY: tenant.apiKey });
  children.push(fastifyOff);
  const fUrl = (p: { ready: Record<string, unknown> }, path: string) => `http://127.0.0.1:${String(p.ready.port)}${path}`;

  const t = (name: string, logLevel: string, url: string, pid: number, headers: Record<string, string>, service: ServiceProcess | null, route: string, peer: number | null): Target =>
    ({ name, logLevel, url, pid, headers, service, route, peer, runs: [] });
  const targets: Target[] = [
    t('node:http hello-world', '–', `http://127.0.0.1:${String(hello.ready.port)}/`, hello.pid, {}, null, '/', null),
    t('fastify 5 GET /healthz', 'pino info → /dev/null', fUrl(fastifyInfo, '/healthz'), fastifyInfo.pid, {}, null, '/healthz', null),
    t('service GET /healthz', 'info → /dev/null', `${info.url}/healthz`, info.pid, {}, info, '/healthz', 1),
    t('fastify 5 GET /api/whoami', 'pino info → /dev/null', fUrl(fastifyInfo, '/api/whoami'), fastifyInfo.pid, auth, null, '/api/whoami', null),
    t('service GET /api/whoami', 'info → /dev/null', `${info.url}/api/whoami`, info.pid, auth, info, '/api/whoami', 3),
    t('fastify 5 GET /api/whoami', 'logger off', fUrl(fastifyOff, '/api/whoami'), fastifyOff.pid, auth, null, '/api/whoami', null),
    t('service GET /api/whoami', 'warn', `${warn.url}/api/whoami`, warn.pid, auth, warn, '/api/whoami', 5),
    // Each worker keeps its own /metrics, so this row's errors are wrk's (status ≥ 400).
    t(`service GET /api/whoami, WEB_CONCURRENCY=${CORES}`, 'info → /dev/null', `${scaled.url}/api/whoami`, scaled.pid, auth, null, '/api/whoami', null),
  ];
  const load = { connections: CONNECTIONS, durationSec: DURATION };
  for (const x of targets) await wrk({ ...load, durationSec: 3, url: x.url, headers: x.headers }); // warm-up (JIT, caches)
  for (let r = 0; r < ROUNDS; r++) {
    for (const x of targets) {
      const counted = x.service === null ? null : await statusCounts(x.service, 'GET', x.route);
      const before = await cpuMsOf(x.pid);
      const result = await wrk({ ...load, url: x.url, headers: x.headers });
      const cpuUsPerRequest = ((await cpuMsOf(x.pid)) - before) * 1000 / result.requests;
      const after = x.service === null || counted === null ? null : await statusCounts(x.service, 'GET', x.route);
      x.runs.push({ ...result, cpuUsPerRequest, failed: failedRequests(result, counted === null || after === null ? null : non2xxBetween(counted, after)) });
    }
  }

  const median = targets.map((x) => medianBy(x.runs, (y) => y.rps));
  const cpu = targets.map((x) => medianBy(x.runs, (y) => y.cpuUsPerRequest).cpuUsPerRequest);
  const base = (median[0] as WrkResult).rps;
  const results = targets.map((x, i) => {
    const m = median[i] as WrkResult;
    const peer = x.peer === null ? null : { rps: (median[x.peer] as WrkResult).rps, cpu: cpu[x.peer] as number };
    const errors = x.runs.reduce((s, y) => s + y.failed, 0);
    const peerRatio = peer === null ? null : round(m.rps / peer.rps, 3);
    return {
      target: x.name, logLevel: x.logLevel, rps: round(m.rps, 0), p50Ms: round(m.latencyMs.p50, 2), p99Ms: round(m.latencyMs.p99, 2),
      helloRatio: round(m.rps / base, 3), peerRatio, cpuUsPerRequest: round(cpu[i] as number, 1),
      peerCpuRatio: peer === null ? null : round(peer.cpu / (cpu[i] as number), 3),
      errors, roundsRps: x.runs.map((y) => round(y.rps, 0)),
      met: peerRatio === null ? null : peerRatio >= TARGET && errors === 0,
    };
  });
  const compared = results.filter((r) => r.met !== null);
  const single = results[4];
  const scaledRow = results[7];
  const scaleRatio = single === undefined || scaledRow === undefined ? null : round(scaledRow.rps / single.rps, 3);
  print({
    bench: 'http-core',
    title: 'HTTP core: GET /healthz and authenticated, rate-limited GET /api/whoami vs fastify 5 doing the same, and bare node:http',
    notes: [
      `load: ${describeWrk(load)} --latency per round, ${ROUNDS} interleaved rounds after a 3 s warm-up each; median round shown`,
      'service: node src/main.ts, NODE_ENV=production, own process; whoami checks the API key (cached) and takes a token in the default scope',
      'fastify: fastify 5 (scripts/bench/peer-libs/fastify-whoami.ts), own process; whoami hashes the key with SHA-256, looks it up in a Map, takes a token bucket, sets the request id, the two RateLimit headers and the service\'s two other headers, and answers the same envelope',
      `rate limits raised for the run: ${Object.keys(RAISED_RATE_LIMITS).join(', ')} = 1000000`,
      'log level: the service with LOG_LEVEL=info (one JSON access-log line per request, stdout → /dev/null) against fastify\'s pino at info (its default two lines per request, asynchronous writes to /dev/null); the service at warn (no access log) against fastify with its logger off',
      'CPU µs/req: the server process\'s user+system CPU time over the round divided by its requests (median round); CPU ratio = the peer\'s ÷ this one\'s',
      'errors: over all rounds, socket errors plus answers outside 2xx (for the service as its /metrics counts them, 499 left out; for fastify and hello as wrk counts them, status ≥ 400)',
      `scale-out row: the service with WEB_CONCURRENCY=${CORES} (nproc) cluster workers sharing the port, CPU summed over its processes; compared with the single-process service at info (not a target: fastify runs one process)`,
      `target: service ÷ fastify req/s ≥ ${TARGET} on the same route at the matching log level, and no errors`,
    ],
    columns: ['server', 'log level', 'req/s', 'p50 ms', 'p99 ms', '÷ hello', '÷ fastify', 'CPU µs/req', 'CPU ratio', 'errors', `target ≥ ${TARGET}`],
    rows: results.map((r, i) => [r.target, r.logLevel, r.rps, r.p50Ms, r.p99Ms, r.helloRatio, r.peerRatio, r.cpuUsPerRequest, r.peerCpuRatio, r.errors, i === 7 ? `÷ 1 worker: ${String(scaleRatio)}` : r.met === null ? '(peer)' : verdict(r.met)]),
    data: { load: { ...load, rounds: ROUNDS }, results, webConcurrency: CORES, scaleRatio, target: TARGET, met: compared.every((r) => r.met === true) },
    headlines: compared.map((r): Headline => ({
      figure: `${r.target.replace('service ', '')} ÷ fastify, log ${r.logLevel.split(' ')[0]}`,
      value: `${String(r.peerRatio)} (${r.rps.toLocaleString('en-US')} req/s; CPU ratio ${String(r.peerCpuRatio)}; ÷ hello ${r.helloRatio}; ${r.errors} errors)`,
      target: `≥ ${TARGET}, 0 errors`,
      met: r.met,
    })).concat([{ figure: `whoami, WEB_CONCURRENCY=${CORES} ÷ 1, log info`, value: `${String(scaleRatio)} (${(scaledRow?.rps ?? 0).toLocaleString('en-US')} req/s)`, target: null, met: null }]),
  });
} finally {
  await Promise.all(children.map((c) => c.stop()));
  await db.drop();
}
