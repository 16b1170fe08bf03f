import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { ENVIRONMENTS, type Environment } from '../../environments.ts';
import { DGII_STATUS_PATHS, STATUS_AMBIENTES, STATUS_SERVICE_NAMES, type StatusService } from '../protocol/paths.ts';
import { environmentOfAmbiente } from '../protocol/status-answers.ts';
import { errorReply, jsonReply, type Reply } from './http.ts';

// The simulated "Estatus Servicios" (Descripción Técnica v1.6), at the root of the simulator's
// address (DGII's is a host of its own): obtenerestatus, obtenerventanasmantenimiento and
// verificarestado, answering from one configurable maintenance window per environment. During a
// window the environment's e-CF services answer 503, as DGII's do while down, so a test can show
// what a submission sent into a window meets. With an API key configured, obtenerestatus and
// obtenerventanasmantenimiento (the two DGII documents with `Authorization: Apikey …`) refuse a
// request without it.

/** A maintenance window, epoch milliseconds; at most a day long (DGII publishes hours of a day). */
export interface SimulatedWindow {
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;
const DOMINICAN_OFFSET_MS = 4 * 3_600_000;

export function checkWindow(window: SimulatedWindow): void {
  if (!Number.isFinite(window.start) || !Number.isFinite(window.end) || window.end <= window.start) throw new RangeError('a maintenance window must end after it starts');
  if (window.end - window.start > DAY_MS) throw new RangeError('a maintenance window lasts at most 24 hours (DGII publishes hours of a day)');
}

const two = (n: number): string => String(n).padStart(2, '0');

/** "9:00 AM" on Santo Domingo's clock, with seconds only when there are any (DGII's own windows fall on minutes). */
function hora(at: number): string {
  const local = new Date(at - DOMINICAN_OFFSET_MS);
  const h = local.getUTCHours();
  const s = local.getUTCSeconds();
  return `${h % 12 === 0 ? 12 : h % 12}:${two(local.getUTCMinutes())}${s === 0 ? '' : `:${two(s)}`} ${h < 12 ? 'AM' : 'PM'}`;
}

function dia(at: number): string {
  const local = new Date(at - DOMINICAN_OFFSET_MS);
  return `${two(local.getUTCDate())}-${two(local.getUTCMonth() + 1)}-${local.getUTCFullYear()}`;
}

export class SimulatedStatus {
  private readonly windows = new Map<Environment, SimulatedWindow>();
  private readonly apiKey: Buffer | null;

  constructor(apiKey: string | null, windows: Partial<Record<Environment, SimulatedWindow>> = {}) {
    this.apiKey = apiKey === null ? null : Buffer.from(apiKey);
    for (const e of ENVIRONMENTS) {
      const w = windows[e];
      if (w !== undefined) this.set(e, w);
    }
  }

  /** Sets (or, with null, removes) the environment's window; it is published rounded out to whole seconds. */
  set(environment: Environment, window: SimulatedWindow | null): void {
    if (window === null) {
      this.windows.delete(environment);
      return;
    }
    checkWindow(window);
    this.windows.set(environment, { start: Math.floor(window.start / 1000) * 1000, end: Math.ceil(window.end / 1000) * 1000 });
  }

  inMaintenance(environment: Environment, now: number): boolean {
    const w = this.windows.get(environment);
    return w !== undefined && w.start <= now && now < w.end;
  }

  private authorized(req: IncomingMessage): boolean {
    if (this.apiKey === null) return true;
    const m = /^Apikey[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    const given = Buffer.from(m?.[1] ?? '');
    return given.length === this.apiKey.length && timingSafeEqual(given, this.apiKey);
  }

  handle(service: StatusService, req: IncomingMessage, url: URL, now: number): Reply {
    if (service !== 'verificarEstado' && !this.authorized(req)) return errorReply(401, 'No autorizado: envíe la clave en el encabezado Authorization (Apikey)', { 'www-authenticate': 'Apikey' });
    switch (service) {
      case 'obtenerEstatus':
        return jsonReply(200, ENVIRONMENTS.flatMap((e) => STATUS_SERVICE_NAMES.map((servicio) => ({
          servicio, estatus: this.inMaintenance(e, now) ? 'No Disponible' : 'Disponible', ambiente: STATUS_AMBIENTES[e].name,
        }))));
      case 'obtenerVentanasMantenimiento':
        return jsonReply(200, {
          ventanaMantenimientos: ENVIRONMENTS.flatMap((e) => {
            const w = this.windows.get(e);
            return w === undefined ? [] : [{ ambiente: STATUS_AMBIENTES[e].name, horaInicio: hora(w.start), horaFin: hora(w.end), dias: [dia(w.start)] }];
          }),
        });
      case 'verificarEstado': {
        const environment = environmentOfAmbiente(url.searchParams.get('ambiente') ?? '');
        if (environment === null) return errorReply(400, 'El parámetro ambiente debe ser 1, 2 o 3');
        return jsonReply(200, { estado: this.inMaintenance(environment, now) ? 'No Disponible' : 'Disponible' });
      }
    }
  }
}

/** The status service a path names (any capitals, as DGII matches paths), or null. */
export function statusServiceOf(pathname: string): StatusService | null {
  const path = pathname.toLowerCase().replace(/\/+$/, '');
  const found = (Object.keys(DGII_STATUS_PATHS) as StatusService[]).find((s) => DGII_STATUS_PATHS[s] === path);
  return found ?? null;
}
