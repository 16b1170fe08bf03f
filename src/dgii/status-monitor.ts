import { ENVIRONMENTS, type Environment } from '../environments.ts';
import type { Logger } from '../log.ts';
import type { MaintenanceWindow, ServiceStatus, StatusEstado } from './protocol/status-answers.ts';
import type { DgiiStatusClient } from './protocol/status-client.ts';

// What this process knows of DGII's "Estatus Servicios": read at start and every refresh
// interval, kept in memory. Each instance polls on its own (a few small GETs every few minutes):
// nothing is shared through the database, so there is nothing to go stale there either.
//
// A part that cannot be read (unreachable, an error status, an answer of another shape) keeps
// what was last read of it, and the refresh's error says why; a part never read is unknown
// (null). Windows are what the submission jobs pause on (pauseFor), so a failed read must not
// forget a window already known.

export interface WindowView {
  /** ISO 8601 UTC instants. */
  start: string;
  end: string;
}

/** GET /{env}/dgii/estatus's data. */
export interface EnvironmentStatusView {
  environment: Environment;
  /** verificarEstado; null when never read. */
  estado: StatusEstado | null;
  /** obtenerEstatus's lines of this environment; null when never read (or no API key is configured). */
  services: { servicio: string; estatus: string }[] | null;
  /** Published windows that have not ended, earliest first (at most MAX_WINDOWS_SHOWN). */
  maintenanceWindows: WindowView[];
  /** In a published window now. */
  inMaintenance: boolean;
  /** When the current window (and any window it runs into) ends; null outside one. */
  maintenanceUntil: string | null;
  /** The last refresh that read anything; null when DGII's status was never read. */
  checkedAt: string | null;
  /** Why the last refresh could not read some part; null when it read everything. */
  error: string | null;
}

/** How long work bound for DGII in the environment waits for a published window to end; null: go ahead. */
export type MaintenanceWait = (environment: Environment) => number | null;

export interface StatusMonitorOptions {
  /** null: nothing is read (a custom tax authority in tests); everything stays unknown. */
  client: DgiiStatusClient | null;
  refreshMs: number;
  /** Added to a window's end before paused work is tried again. */
  marginMs: number;
  log: Logger;
}

const MAX_WINDOWS_SHOWN = 50;
const FIRST_READ_WAIT_MS = 5000;
/** Published windows kept: DGII lists a few days a month; this bounds a runaway answer. */
const MAX_WINDOWS_KEPT = 5000;

export class DgiiStatusMonitor {
  private readonly options: StatusMonitorOptions;
  private readonly estado = new Map<Environment, StatusEstado>();
  private services: ServiceStatus[] | null = null;
  private windows: MaintenanceWindow[] = [];
  private checkedAt: number | null = null;
  private errors: { environment: Environment | null; text: string }[] = [];
  private inFlight: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly stopped = new AbortController();

  constructor(options: StatusMonitorOptions) {
    this.options = options;
  }

  /** Reads now, then every refreshMs until stop(). */
  start(): void {
    if (this.options.client === null || this.stopped.signal.aborted) return;
    const loop = (): void => {
      void this.refresh().finally(() => {
        if (this.stopped.signal.aborted) return;
        this.timer = setTimeout(loop, this.options.refreshMs);
        this.timer.unref();
      });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    if (this.timer !== null) clearTimeout(this.timer);
    await this.inFlight;
  }

  /** One read of the three endpoints; a call during a read shares it. */
  refresh(): Promise<void> {
    this.inFlight ??= this.read().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async read(): Promise<void> {
    const client = this.options.client;
    if (client === null) return;
    const signal = this.stopped.signal;
    const [estatus, ventanas, ...estados] = await Promise.all([
      client.hasApiKey ? client.estatus(signal) : Promise.resolve(null),
      client.ventanas(signal),
      ...ENVIRONMENTS.map((e) => client.verificarEstado(e, signal)),
    ]);
    const errors: { environment: Environment | null; text: string }[] = [];
    let readSomething = false;
    if (estatus !== null) {
      if ('value' in estatus) {
        this.services = estatus.value;
        readSomething = true;
      } else errors.push({ environment: null, text: estatus.problem });
    }
    if ('value' in ventanas) {
      this.windows = ventanas.value.slice(0, MAX_WINDOWS_KEPT);
      readSomething = true;
    } else errors.push({ environment: null, text: ventanas.problem });
    ENVIRONMENTS.forEach((environment, i) => {
      const r = estados[i];
      if (r === undefined) return;
      if ('value' in r) {
        this.estado.set(environment, r.value);
        readSomething = true;
      } else errors.push({ environment, text: r.problem });
    });
    if (readSomething) this.checkedAt = Date.now();
    const before = this.errors.map((e) => e.text).join('; ');
    const after = errors.map((e) => e.text).join('; ');
    this.errors = errors;
    if (after !== before) {
      if (after === '') this.options.log.info('DGII service status read again');
      else this.options.log.warn('could not read DGII service status', { error: after });
    }
  }

  /**
   * Whether `environment` is in a published window at `at`, and until when: the end of the
   * window holding `at`, carried on through any window that starts before it ends.
   */
  maintenanceAt(environment: Environment, at: number): { start: number; end: number } | null {
    let found: { start: number; end: number } | null = null;
    for (const w of this.windows) {
      if (w.environment !== environment) continue;
      if (found === null) {
        if (w.start <= at && at < w.end) found = { start: w.start, end: w.end };
      } else if (w.start <= found.end && w.end > found.end) {
        found.end = w.end;
      }
    }
    return found;
  }

  /** How long work bound for DGII in `environment` waits (to the window's end plus the margin); null: go ahead. */
  pauseFor(environment: Environment, now = Date.now()): number | null {
    const window = this.maintenanceAt(environment, now);
    return window === null ? null : window.end - now + this.options.marginMs;
  }

  /** What is known now, for the route. */
  view(environment: Environment, now = Date.now()): EnvironmentStatusView {
    const current = this.maintenanceAt(environment, now);
    const errors = this.errors.filter((e) => e.environment === null || e.environment === environment).map((e) => e.text);
    return {
      environment,
      estado: this.estado.get(environment) ?? null,
      services: this.services === null ? null : this.services.filter((s) => s.environment === environment).map((s) => ({ servicio: s.servicio, estatus: s.estatus })),
      maintenanceWindows: this.windows
        .filter((w) => w.environment === environment && w.end > now)
        .slice(0, MAX_WINDOWS_SHOWN)
        .map((w) => ({ start: new Date(w.start).toISOString(), end: new Date(w.end).toISOString() })),
      inMaintenance: current !== null,
      maintenanceUntil: current === null ? null : new Date(current.end).toISOString(),
      checkedAt: this.checkedAt === null ? null : new Date(this.checkedAt).toISOString(),
      error: this.options.client === null ? 'DGII\'s service status is not read by this instance (no status client)' : errors.length === 0 ? null : errors.join('; '),
    };
  }

  /**
   * view(), after waiting for the first read when none has finished yet (at most
   * FIRST_READ_WAIT_MS, well inside a request's deadline: DGII may be slow to answer).
   */
  async current(environment: Environment): Promise<EnvironmentStatusView> {
    if (this.checkedAt === null && this.errors.length === 0 && this.options.client !== null) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.refresh(), new Promise((resolve) => (timer = setTimeout(resolve, FIRST_READ_WAIT_MS)))]);
      clearTimeout(timer);
    }
    return this.view(environment);
  }

  /** /metrics: DGII's availability (known environments only) and whether each is in a published window. */
  gauges(now = Date.now()): { name: string; help: string; samples: { labels: { environment: string }; value: number }[] }[] {
    return [
      {
        name: 'ecf_dgii_available',
        help: 'DGII\'s verificarEstado for the environment as last read by this instance: 1 Disponible, 0 No Disponible (in maintenance); no sample while never read.',
        samples: ENVIRONMENTS.filter((e) => this.estado.has(e)).map((environment) => ({ labels: { environment }, value: this.estado.get(environment) === 'Disponible' ? 1 : 0 })),
      },
      {
        name: 'ecf_dgii_maintenance_window',
        help: '1 while the environment is in a maintenance window DGII published (obtenerVentanasMantenimiento, as last read by this instance): submissions to it are paused; 0 otherwise.',
        samples: ENVIRONMENTS.map((environment) => ({ labels: { environment }, value: this.maintenanceAt(environment, now) === null ? 0 : 1 })),
      },
    ];
  }
}
