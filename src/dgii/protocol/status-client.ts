import type { Environment } from '../../environments.ts';
import { TransientAuthorityError } from '../authority.ts';
import { errorText } from './answers.ts';
import { exchange, type HttpAnswer } from './http.ts';
import { DGII_STATUS_PATHS, STATUS_AMBIENTES, type StatusService } from './paths.ts';
import {
  type MaintenanceWindow, type Read, readEstatusAnswer, readVentanasAnswer, readVerificarAnswer, type ServiceStatus, type StatusEstado,
} from './status-answers.ts';

// DGII's "Estatus Servicios" (Descripción Técnica v1.6): the services' availability, the published
// maintenance windows, and whether an environment is in maintenance now. One host for every
// environment; no token, an API key DGII hands out instead (`Authorization: Apikey …`). Each call
// answers a Read: the value, or the problem in words (unreachable, a status other than 200, an
// answer of another shape). It never throws, so the monitor above it has nothing to crash on.

export interface StatusClientOptions {
  /** e.g. https://statusecf.dgii.gov.do */
  baseUrl: string;
  /** DGII's API key; null sends none (obtenerEstatus then is not asked). */
  apiKey: string | null;
  timeoutMs: number;
  /** Told of every exchange (ecf_dgii_requests_total). */
  onRequest?: (service: StatusService, outcome: 'ok' | 'client_error' | 'server_error' | 'no_answer') => void;
}

/** DGII's answers are a few kilobytes; a year of windows stays far below this. */
const MAX_ANSWER_BYTES = 256 * 1024;

export class DgiiStatusClient {
  private readonly options: StatusClientOptions;

  constructor(options: StatusClientOptions) {
    this.options = options;
  }

  /** Whether an API key is configured (obtenerEstatus needs one). */
  get hasApiKey(): boolean {
    return this.options.apiKey !== null;
  }

  private async get<T>(service: StatusService, query: string, read: (json: unknown) => Read<T>, signal: AbortSignal): Promise<Read<T>> {
    const purpose = `reading DGII's service status (${DGII_STATUS_PATHS[service]})`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey !== null) headers.authorization = `Apikey ${this.options.apiKey}`;
    const url = this.options.baseUrl.replace(/\/+$/, '') + DGII_STATUS_PATHS[service] + query;
    let answer: HttpAnswer;
    try {
      answer = await exchange({ method: 'GET', url, headers, purpose }, { timeoutMs: this.options.timeoutMs, signal, maxAnswerBytes: MAX_ANSWER_BYTES });
    } catch (err) {
      this.options.onRequest?.(service, 'no_answer');
      return { problem: err instanceof TransientAuthorityError ? err.message : `Could not reach DGII while ${purpose}` };
    }
    this.options.onRequest?.(service, answer.status >= 200 && answer.status < 300 ? 'ok' : answer.status < 500 ? 'client_error' : 'server_error');
    if (answer.status !== 200) {
      const detail = errorText(answer.json, answer.text);
      return { problem: `DGII answered HTTP ${answer.status} while ${purpose}${detail === null ? '' : `: ${detail.slice(0, 200)}`}` };
    }
    return read(answer.json);
  }

  /** obtenerEstatus: each service's status in every environment DGII lists. */
  estatus(signal: AbortSignal): Promise<Read<ServiceStatus[]>> {
    return this.get('obtenerEstatus', '', readEstatusAnswer, signal);
  }

  /** obtenerVentanasMantenimiento: the published windows of every environment, as instants. */
  ventanas(signal: AbortSignal): Promise<Read<MaintenanceWindow[]>> {
    return this.get('obtenerVentanasMantenimiento', '', readVentanasAnswer, signal);
  }

  /** verificarEstado: "No Disponible" while the environment is in maintenance. */
  verificarEstado(environment: Environment, signal: AbortSignal): Promise<Read<StatusEstado>> {
    return this.get('verificarEstado', `?ambiente=${STATUS_AMBIENTES[environment].code}`, readVerificarAnswer, signal);
  }
}
