// HTTP core: GET /api/whoami (API key checked against the credential cache, rate limit
// taken in the `default` scope, JSON envelope, access log) against a bare node:http
// hello-world, each in its own process, driven by the same wrk settings. Rounds are
// interleaved (hello, info, warn, hello, ...) so a noisy moment hurts all alike, and the
// median round of each is reported. Each server's CPU time per request (from /proc) is
// reported too: on a shared machine it moves far less than requests per second. A target
// is met only by a run without a failed request: fast 4xx or 429 answers would be quick too.
import { createDatabase } from './lib/database.ts';
import { cpuMsOf, RAISED_RATE_LIMITS, startPeer, startService, type Child, type ServiceProcess } from './lib/processes.ts';
import { medianBy, print, round, setting, verdict } from './lib/report.ts';
import { failedRequests, non2xxBetween, statusCounts } from './lib/statuses.ts';
import { registerTenant } from './lib/tenants.ts';
import { describeWrk, wrk, type WrkResult } from './lib/wrk.ts';

const DURATION = setting('BENCH_DURATION_SEC', 10);
const ROUNDS = setting('BENCH_ROUNDS', 3);
const CONNECTIONS = setting('BENCH_HTTP_CONNECTIONS', 64);
const TARGET = 0.95;

interface Target {
  name: string;
  logLevel: string;
  url: string;
  pid: number;
  headers: Record<string, string>;
  /** The service process, whose /metrics counts its answers by status; null for the hello-world. */
  service: ServiceProcess | null;
  runs: (WrkResult & { cpuUsPerRequest: number; failed: number })[];
}

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

  const targets: Target[] = [
    { name: 'node:http hello-world', logLevel: '–', url: `http://127.0.0.1:${String(hello.ready.port)}/`, pid: hello.pid, headers: {}, service: null, runs: [] },
    { name: 'service GET /api/whoami', logLevel: 'info → /dev/null', url: `${info.url}/api/whoami`, pid: info.pid, headers: auth, service: info, runs: [] },
    { name: 'service GET /api/whoami', logLevel: 'warn', url: `${warn.url}/api/whoami`, pid: warn.pid, headers: auth, service: warn, runs: [] },
  ];
  const load = { connections: CONNECTIONS, durationSec: DURATION };
  for (const t of targets) await wrk({ ...load, durationSec: 3, url: t.url, headers: t.headers }); // warm-up (JIT, caches)
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of targets) {
      const counted = t.service === null ? null : await statusCounts(t.service, 'GET', '/api/whoami');
      const before = await cpuMsOf(t.pid);
      const result = await wrk({ ...load, url: t.url, headers: t.headers });
      const cpuUsPerRequest = ((await cpuMsOf(t.pid)) - before) * 1000 / result.requests;
      const after = t.service === null || counted === null ? null : await statusCounts(t.service, 'GET', '/api/whoami');
      t.runs.push({ ...result, cpuUsPerRequest, failed: failedRequests(result, counted === null || after === null ? null : non2xxBetween(counted, after)) });
    }
  }

  const median = targets.map((t) => medianBy(t.runs, (x) => x.rps));
  const cpu = targets.map((t) => medianBy(t.runs, (x) => x.cpuUsPerRequest).cpuUsPerRequest);
  const base = (median[0] as WrkResult).rps;
  const baseCpu = cpu[0] as number;
  const results = targets.map((t, i) => {
    const m = median[i] as WrkResult;
    return {
      target: t.name, logLevel: t.logLevel, rps: round(m.rps, 0), p50Ms: round(m.latencyMs.p50, 2), p99Ms: round(m.latencyMs.p99, 2),
      ratio: round(m.rps / base, 3), cpuUsPerRequest: round(cpu[i] as number, 1), cpuRatio: round(baseCpu / (cpu[i] as number), 3),
      errors: t.runs.reduce((s, x) => s + x.failed, 0), roundsRps: t.runs.map((x) => round(x.rps, 0)),
    };
  }).map((r) => ({ ...r, met: r.ratio >= TARGET && r.errors === 0 }));
  print({
    bench: 'http-core',
    title: 'HTTP core: authenticated, rate-limited GET /api/whoami vs bare node:http',
    notes: [
      `load: ${describeWrk(load)} --latency per round, ${ROUNDS} interleaved rounds after a 3 s warm-up each; median round shown`,
      'service: node src/main.ts, NODE_ENV=production, own process; whoami checks the API key (cached) and takes a token in the default scope',
      `rate limits raised for the run: ${Object.keys(RAISED_RATE_LIMITS).join(', ')} = 1000000`,
      'log level: one service with LOG_LEVEL=info (one JSON access-log line per request, stdout → /dev/null), one with LOG_LEVEL=warn (no access log)',
      'CPU µs/req: the server process\'s user+system CPU time over the round divided by its requests (median round); CPU ratio = hello\'s ÷ this one\'s',
      'errors: over all rounds, socket errors plus answers outside 2xx (as the service\'s /metrics counts them, 3xx included, 499 — wrk hanging up on requests still waiting when its run ends — left out; wrk itself only counts status ≥ 400)',
      `target: service/hello req/s ≥ ${TARGET}, and no errors (a run of quick refusals is not a fast run)`,
    ],
    columns: ['server', 'log level', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'CPU µs/req', 'CPU ratio', 'errors', `target ≥ ${TARGET}`],
    rows: results.map((r, i) => [r.target, r.logLevel, r.rps, r.p50Ms, r.p99Ms, r.ratio, r.cpuUsPerRequest, r.cpuRatio, r.errors, i === 0 ? '(baseline)' : verdict(r.met)]),
    data: { load: { ...load, rounds: ROUNDS }, results, target: TARGET, met: results.slice(1).every((r) => r.met) },
    headlines: results.slice(1).map((r) => ({
      figure: `whoami/hello req/s, log ${r.logLevel.split(' ')[0]}`,
      value: `${r.ratio} (${r.rps.toLocaleString('en-US')} vs ${(results[0]?.rps ?? 0).toLocaleString('en-US')} req/s; CPU ratio ${r.cpuRatio}; ${r.errors} errors)`,
      target: `≥ ${TARGET}, 0 errors`,
      met: r.met,
    })),
  });
} finally {
  await Promise.all(children.map((c) => c.stop()));
  await db.drop();
}
