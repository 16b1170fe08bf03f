import { isDatabaseUnavailable } from '../db/errors.ts';
import type { CompletedRequest } from '../http/server.ts';
import { DeadlineExceeded, within } from '../lib/deadline.ts';
import type { RateLimits } from '../ratelimit/limiter.ts';
import { RATE_SCOPE_NAMES } from '../ratelimit/scopes.ts';
import { Counter, Histogram, gauge, type GaugeFamily, type GaugeSource } from './registry.ts';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/**
 * How long a scrape waits for the database-derived gauges. Well under Prometheus' default
 * 10 s scrape timeout, so a database that hangs (rather than refuses) still lets the
 * in-memory part through.
 */
const DATABASE_DEADLINE_MS = 2_000;

interface Cell {
  count: { value: number };
  latency: { observe(value: number): void };
}

/** What /metrics exposes: request counts and latency, queue depth, deliveries, rate-limit refusals. */
export class ServiceMetrics {
  private readonly requests = new Counter('ecf_http_requests_total', 'HTTP requests by method, route pattern and status.');
  private readonly latency = new Histogram('ecf_http_request_duration_seconds', 'HTTP request duration by method and route pattern.', LATENCY_BUCKETS);
  private readonly repaired = new Counter('ecf_repaired_jobs_total', 'Jobs recreated by the periodic repair for work in flight that had none, by job kind (this instance).');
  private readonly dgiiRequests = new Counter('ecf_dgii_requests_total', 'HTTP exchanges with DGII (or the built-in simulator) by service (seed, validateSeed, recepcion, estado, rfce, …) and outcome: ok (2xx), client_error (another status below 500), server_error (5xx), no_answer (network error, timeout, oversized answer); this instance.');

  private readonly rateLimits: RateLimits;
  /** Each part of the service that keeps state in the database adds its gauges (app.ts wires them). */
  private readonly sources: readonly GaugeSource[];
  /** Gauges of what this process keeps in memory (DGII's status): served during a database outage too. */
  private readonly memorySources: readonly (() => GaugeFamily[])[];

  constructor(rateLimits: RateLimits, sources: readonly GaugeSource[], memorySources: readonly (() => GaugeFamily[])[] = []) {
    this.rateLimits = rateLimits;
    this.sources = sources;
    this.memorySources = memorySources;
  }

  /**
   * Each (method, route, status)'s counter and latency series, found by three map lookups on
   * strings the server already holds (their hashes are cached), not by a key built per request.
   */
  private readonly cells = new Map<string, Map<string, Map<number, Cell>>>();

  readonly onRequest = (r: CompletedRequest): void => {
    let routes = this.cells.get(r.method);
    if (routes === undefined) this.cells.set(r.method, (routes = new Map()));
    let statuses = routes.get(r.route);
    if (statuses === undefined) routes.set(r.route, (statuses = new Map()));
    let cell = statuses.get(r.status);
    if (cell === undefined) {
      cell = { count: this.requests.cell({ method: r.method, route: r.route, status: String(r.status) }), latency: this.latency.cell({ method: r.method, route: r.route }) };
      statuses.set(r.status, cell);
    }
    cell.count.value++;
    cell.latency.observe((r.ms ?? 0) / 1000);
  };

  /** Counts an exchange with DGII (src/dgii/protocol/client.ts). */
  readonly onDgiiRequest = (service: string, outcome: string): void => {
    this.dgiiRequests.inc({ service, outcome });
  };

  /** Counts jobs the periodic repair recreated (src/maintenance/repair.ts). */
  readonly onRepaired = (kind: string, jobs: number): void => {
    this.repaired.inc({ kind }, jobs);
  };

  /**
   * The in-memory counters always; the database-derived gauges (read at scrape time, so they
   * hold for every instance alike) only when the database answers. An outage is exactly when
   * the request counters (all those 503s) matter, so it must not take them down with it.
   */
  async render(): Promise<string> {
    const database = await this.databaseGauges();
    const memory = process.memoryUsage();
    const lines = [
      ...this.requests.render(),
      ...this.latency.render(),
      ...this.repaired.render(),
      ...this.dgiiRequests.render(),
      '# HELP ecf_rate_limit_refusals_total Requests refused with 429, by scope (this instance).',
      '# TYPE ecf_rate_limit_refusals_total counter',
      ...RATE_SCOPE_NAMES.map((scope) => `ecf_rate_limit_refusals_total{scope="${scope}"} ${this.rateLimits.refusals(scope)}`),
      ...gauge('ecf_database_up', `1 when the database answered this scrape within ${DATABASE_DEADLINE_MS / 1000} s; 0 otherwise, and the ecf_jobs_* and ecf_webhook_deliveries gauges are left out.`, [{ value: database === null ? 0 : 1 }]),
      ...(database ?? []),
      ...this.memorySources.flatMap((source) => source()).flatMap((f) => gauge(f.name, f.help, f.samples)),
      ...gauge('process_resident_memory_bytes', 'Resident set size.', [{ value: memory.rss }]),
      ...gauge('nodejs_heap_used_bytes', 'V8 heap in use.', [{ value: memory.heapUsed }]),
      ...gauge('process_uptime_seconds', 'Seconds since the process started.', [{ value: Math.round(process.uptime()) }]),
    ];
    return lines.join('\n') + '\n';
  }

  /** The gauges read from the database, or null when it cannot be reached or is too slow. */
  private async databaseGauges(): Promise<string[] | null> {
    let families: GaugeFamily[][];
    try {
      families = await within(Promise.all(this.sources.map((source) => source())), DATABASE_DEADLINE_MS);
    } catch (err) {
      // Anything else is a fault of the query itself: it should surface as a failed scrape.
      if (err instanceof DeadlineExceeded || isDatabaseUnavailable(err)) return null;
      throw err;
    }
    return families.flat().flatMap((f) => gauge(f.name, f.help, f.samples));
  }
}
