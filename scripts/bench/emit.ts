// Emit: POST /TesteCF/documentos-ecf with a unique Idempotency-Key per request at 64
// connections (wrk + wrk/emit.lua), against pgbench running a 3-insert transaction (a
// document row with the same jsonb payload, a history row, a job row) with 64 clients on
// the same PostgreSQL server. Every run gets fresh databases. A target is met only by a run
// in which every request was answered 2xx: quick refusals would look like speed.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { sampleEcf } from '../../test/fixtures/ecf.ts';
import { ecfFor } from '../../test/helpers/documents.ts';
import { createDatabase, serverSettings, type ThrowawayDatabase } from './lib/database.ts';
import { cpuMsOf, RAISED_RATE_LIMITS, run, sleep, startService, type ServiceProcess } from './lib/processes.ts';
import { print, round, setting, verdict } from './lib/report.ts';
import { failedRequests, non2xxBetween, statusCounts } from './lib/statuses.ts';
import { registerTenant, type Tenant } from './lib/tenants.ts';
import { describeWrk, wrk, type WrkResult } from './lib/wrk.ts';

const DURATION = setting('BENCH_DURATION_SEC', 10);
const CONNECTIONS = setting('BENCH_EMIT_CONNECTIONS', 64);
const SPREAD_TENANTS = setting('BENCH_EMIT_TENANTS', 8);
/**
 * Seconds of load on each service before the measured runs. CPU per emit falls for the first
 * 30-40 s of load (V8 optimising the hot paths, the heap finding its size), and a service that
 * runs for days is measured better by what follows than by its first seconds: 3 s left the first
 * measured row about a fifth dearer than the same row run later.
 */
const WARMUP_SEC = setting('BENCH_EMIT_WARMUP_SEC', 15);
const RATIO_TARGET = 0.5;
const P99_TARGET_MS = 50;

const work = await mkdtemp(join(tmpdir(), 'ecf-bench-emit-'));

type Numbering = 'service' | 'client';
/** The emit route as the service's /metrics labels it. */
const EMIT_ROUTE = '/{env}/documentos-ecf';

/** sampleEcf(31) of the tenant: without eNCF (the service numbers it), or with a placeholder emit.lua fills. */
function emitBody(rnc: string, numbering: Numbering): string {
  return JSON.stringify(numbering === 'service'
    ? ecfFor(rnc, 31)
    : sampleEcf(31, { Encabezado: { IdDoc: { eNCF: 'E31XXXXXXXXXX' }, Emisor: { RNCEmisor: rnc } } }));
}

let runs = 0;

async function emitRun(service: ServiceProcess, tenants: Tenant[], numbering: Numbering, durationSec: number): Promise<WrkResult> {
  const file = join(work, `tenants-${randomBytes(4).toString('hex')}.tsv`);
  await writeFile(file, tenants.map((t) => `${t.apiKey}\t${emitBody(t.rnc, numbering)}`).join('\n') + '\n');
  runs++;
  return wrk({
    url: `${service.url}/TesteCF/documentos-ecf`, connections: CONNECTIONS, durationSec, script: 'emit.lua',
    env: { BENCH_EMIT_TENANTS: file, BENCH_RUN_ID: randomBytes(6).toString('hex'), BENCH_ENCF_BASE: String(runs * 100_000_000) },
  });
}

/** The pgbench transaction: what an emit must write at least, in three INSERTs. */
async function pgbenchScript(db: ThrowawayDatabase): Promise<string> {
  const { sql } = await db.open(1);
  const rnc = '131880681';
  const [tenant] = await sql<{ id: number }[]>`insert into tenants (name, rnc) values ('pgbench', ${rnc}) returning id`;
  const payload = JSON.stringify(ecfFor(rnc, 31).ECF).replaceAll("'", "''");
  const script = [
    'BEGIN;',
    'INSERT INTO documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)',
    `  VALUES (gen_random_uuid(), ${tenant?.id}, 'TesteCF', 31, 'E31' || substr(md5(random()::text), 1, 10), 'recibido', '${rnc}', current_date, 1234.56, '${payload}'::jsonb)`,
    '  RETURNING id AS doc_id \\gset',
    "INSERT INTO document_history (document_id, estado) VALUES (:doc_id, 'recibido');",
    "INSERT INTO jobs (kind, payload) VALUES ('document.submit', jsonb_build_object('documentId', :doc_id::text));",
    'END;',
    '',
  ].join('\n');
  const file = join(work, 'emit.pgbench.sql');
  await writeFile(file, script);
  return file;
}

/** The p-th percentile (0–100) of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * pgbench's own p50 and p99, from its per-transaction log (`-l`: the third field is the latency in
 * µs): what the server's commits alone give at the same connections, so that the emit's p99 can be
 * read against what the machine allows.
 */
async function pgbenchLatencies(prefix: string): Promise<{ p50Ms: number; p99Ms: number }> {
  const files = (await readdir(work)).filter((f) => f.startsWith(basename(prefix)));
  const latencies: number[] = [];
  for (const f of files) {
    for (const line of (await readFile(join(work, f), 'utf8')).split('\n')) {
      const us = Number(line.split(' ')[2]);
      if (line !== '' && Number.isFinite(us)) latencies.push(us / 1000);
    }
    await rm(join(work, f));
  }
  latencies.sort((a, b) => a - b);
  return { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

async function pgbench(db: ThrowawayDatabase, file: string): Promise<{ tps: number; latencyAvgMs: number; p50Ms: number; p99Ms: number; transactions: number; failed: number }> {
  const prefix = join(work, 'pgbench-log');
  const args = ['-n', '-c', String(CONNECTIONS), '-j', '2', '-T', String(DURATION), '-M', 'prepared', '-l', `--log-prefix=${prefix}`, '-f', file, db.url];
  // Once more after a pause if it could not start (other users of the server may hold connections for a moment).
  const out = await run('pgbench', args).catch(async () => {
    await sleep(5000);
    return run('pgbench', args);
  });
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
  const latency = /latency average = ([\d.]+) ms/.exec(out);
  const processed = /number of transactions actually processed: (\d+)/.exec(out);
  if (tps?.[1] === undefined || latency?.[1] === undefined) throw new Error(`unexpected pgbench output:\n${out}`);
  return { tps: Number(tps[1]), latencyAvgMs: Number(latency[1]), ...(await pgbenchLatencies(prefix)), transactions: Number(processed?.[1] ?? 0), failed: Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0) };
}

const settings = await serverSettings();
const serviceDb = await createDatabase('emit');
const pgbenchDb = await createDatabase('emit_pgbench');
const services: ServiceProcess[] = [];
try {
  // Background workers off: only the emit path (validate, number, store, queue) is measured.
  const base = { DATABASE_URL: serviceDb.url, WORKERS_ENABLED: 'false' };
  services.push(await startService({ ...base, LOG_LEVEL: 'info' }));
  services.push(await startService({ ...base, LOG_LEVEL: 'warn' }));
  const [info, warn] = services as [ServiceProcess, ServiceProcess];
  const tenants = await Promise.all(Array.from({ length: SPREAD_TENANTS }, () => registerTenant(info.url)));
  const one = [tenants[0] as Tenant];
  const probe = await fetch(`${info.url}/TesteCF/documentos-ecf`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': one[0]?.apiKey ?? '', 'idempotency-key': 'probe' }, body: emitBody(one[0]?.rnc ?? '', 'service'),
  });
  if (probe.status !== 202) throw new Error(`emit answered ${probe.status}: ${await probe.text()}`);

  const scenarios = [
    { name: '1 tenant', logLevel: 'info → /dev/null', service: info, tenants: one, numbering: 'service' as const },
    { name: '1 tenant', logLevel: 'warn', service: warn, tenants: one, numbering: 'service' as const },
    { name: `${SPREAD_TENANTS} tenants`, logLevel: 'info → /dev/null', service: info, tenants, numbering: 'service' as const },
    { name: '1 tenant, eNCF sent', logLevel: 'info → /dev/null', service: info, tenants: one, numbering: 'client' as const },
  ];
  await emitRun(info, one, 'service', WARMUP_SEC); // warm-up (JIT, pools, caches)
  await emitRun(warn, one, 'service', WARMUP_SEC);
  const results = [];
  for (const s of scenarios) {
    const counted = await statusCounts(s.service, 'POST', EMIT_ROUTE);
    const cpuBefore = await cpuMsOf(s.service.pid);
    const r = await emitRun(s.service, s.tenants, s.numbering, DURATION);
    const cpuMsPerRequest = round(((await cpuMsOf(s.service.pid)) - cpuBefore) / r.requests, 2);
    const after = counted === null ? null : await statusCounts(s.service, 'POST', EMIT_ROUTE);
    const errors = failedRequests(r, counted === null || after === null ? null : non2xxBetween(counted, after));
    results.push({ scenario: s.name, logLevel: s.logLevel, rps: round(r.rps, 0), p50Ms: round(r.latencyMs.p50, 1), p99Ms: round(r.latencyMs.p99, 1), cpuMsPerRequest, errors, requests: r.requests });
  }
  const { sql } = await serviceDb.open(1);
  const [stored] = await sql<{ documents: number; jobs: number }[]>`select (select count(*)::int from documents) as documents, (select count(*)::int from jobs) as jobs`;
  await Promise.all(services.splice(0).map((s) => s.stop())); // their connections closed before pgbench's 64 open

  const baseline = await pgbench(pgbenchDb, await pgbenchScript(pgbenchDb));
  const rows = results.map((r) => {
    const ratio = round(r.rps / baseline.tps, 3);
    return { ...r, ratio, met: ratio >= RATIO_TARGET && r.p99Ms <= P99_TARGET_MS && r.errors === 0 };
  });
  const primary = rows[0];
  print({
    bench: 'emit',
    title: 'Emit: POST /TesteCF/documentos-ecf (unique Idempotency-Key) vs pgbench 3-insert transaction',
    notes: [
      `load: ${describeWrk({ connections: CONNECTIONS, durationSec: DURATION })} --latency with wrk/emit.lua (a new Idempotency-Key per request), after a ${WARMUP_SEC} s warm-up of each service (BENCH_EMIT_WARMUP_SEC)`,
      'service: own process, NODE_ENV=production, WORKERS_ENABLED=false (no submission or webhook work runs: only the emit path is measured), DB_POOL_MAX=10 (default)',
      `rate limits raised for the run: ${Object.keys(RAISED_RATE_LIMITS).join(', ')} = 1000000`,
      'log level: info (access log to /dev/null) and warn, each in its own service process on the same database',
      `eNCF omitted (the brief's case): the service numbers each document from its (tenant, environment, type) sequence, whose row lock is held to commit; emits of one sequence that arrive while a transaction holds it are grouped into the next one (up to 64), which takes their numbers in one statement and commits once (group commit), so one tenant's emits share commits rather than wait for one each`,
      `the ${SPREAD_TENANTS}-tenant row rotates requests over ${SPREAD_TENANTS} tenants (${SPREAD_TENANTS} sequences, batched independently); the "eNCF sent" row has the client number its documents (a unique eNCF per request): such emits are batched apart from numbered ones, their eNCFs checked against the ranges (none here) and committed together`,
      `baseline: pgbench -n -c ${CONNECTIONS} -j 2 -T ${DURATION} -M prepared -l (its p50 and p99 from its per-transaction log: the latency the server's commits alone give at these connections, against which the emit's p99 is read), one transaction = INSERT documents (same jsonb payload) + INSERT document_history + INSERT jobs, on a fresh migrated database`,
      `PostgreSQL ${settings.server_version ?? '?'}: fsync=${settings.fsync ?? '?'}, synchronous_commit=${settings.synchronous_commit ?? '?'}, wal_sync_method=${settings.wal_sync_method ?? '?'}, shared_buffers=${settings.shared_buffers ?? '?'} (8 kB pages)`,
      'CPU ms/req: the service process\'s user+system CPU time during the run divided by its requests (one core gives 1000 ms per second)',
      'errors: socket errors plus answers outside 2xx (as the service\'s /metrics counts them, 3xx included, 499 — wrk hanging up on requests still waiting when its run ends — left out; wrk itself only counts status ≥ 400); pgbench: failed transactions',
      `targets: emit/pgbench ≥ ${RATIO_TARGET}, p99 ≤ ${P99_TARGET_MS} ms and no errors; stored after the runs: ${stored?.documents ?? '?'} documents, ${stored?.jobs ?? '?'} queued jobs`,
    ],
    columns: ['run', 'log level', 'req/s or tps', 'p50 ms', 'p99 ms', 'ratio', 'CPU ms/req', 'errors', 'targets'],
    rows: [
      ...rows.map((r) => [`emit, ${r.scenario}`, r.logLevel, r.rps, r.p50Ms, r.p99Ms, r.ratio, r.cpuMsPerRequest, r.errors, verdict(r.met)]),
      ['pgbench 3 inserts', '–', round(baseline.tps, 0), round(baseline.p50Ms, 1), round(baseline.p99Ms, 1), 1, null, baseline.failed, `(baseline; avg ${baseline.latencyAvgMs} ms)`],
    ],
    data: { load: { connections: CONNECTIONS, durationSec: DURATION }, results: rows, pgbench: baseline, postgres: settings, targets: { ratio: RATIO_TARGET, p99Ms: P99_TARGET_MS }, met: primary?.met ?? false },
    headlines: rows.map((r) => ({
      figure: `emit/pgbench, ${r.scenario}, log ${r.logLevel.split(' ')[0]}`,
      value: `${r.ratio} (${r.rps.toLocaleString('en-US')} req/s vs ${Math.round(baseline.tps).toLocaleString('en-US')} tps), p99 ${r.p99Ms} ms (pgbench's ${round(baseline.p99Ms, 1)}), ${r.errors} errors`,
      target: `≥ ${RATIO_TARGET}, p99 ≤ ${P99_TARGET_MS} ms, 0 errors`,
      met: r.met,
    })),
  });
} finally {
  await Promise.all(services.map((s) => s.stop()));
  await serviceDb.drop();
  await pgbenchDb.drop();
  await rm(work, { recursive: true, force: true });
}
