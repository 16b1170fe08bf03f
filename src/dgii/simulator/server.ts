import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENVIRONMENTS, type Environment, parseEnvironment, publishes } from '../../environments.ts';
import type { Logger } from '../../log.ts';
import { DEFAULT_MULTIPART_LIMITS } from '../protocol/multipart.ts';
import { DGII_PATHS, type DgiiService, type StatusService } from '../protocol/paths.ts';
import { seedHandler, validateSeedHandler } from './auth.ts';
import type { Handler } from './context.ts';
import { BodyTooLarge, errorReply, jsonReply, readBody, type Reply, send } from './http.ts';
import { annulmentHandler } from './annulment.ts';
import { aprobacionHandler, consultaEstadoHandler, directoryHandler, timbreHandler } from './exchange.ts';
import type { DirectoryEntry } from '../protocol/exchange-answers.ts';
import { estadoHandler, recepcionHandler, rfceHandler, rfceStatusHandler, trackIdsHandler } from './reception.ts';
import { type SimulatorCounters, SimulatorState } from './state.ts';
import { SimulatedStatus, type SimulatedWindow, statusServiceOf } from './status.ts';

// A stand-in for DGII's HTTP services, for tests and development: one server for the three
// environments (/testecf, /certecf, /ecf) and the RFCE host (/fc/testecf, ...), state in memory.

export interface DgiiSimulatorOptions {
  /** How long a received e-CF stays "En Proceso" before its verdict. */
  processingMs: number;
  log: Logger;
  /** Token lifetime; DGII's is one hour. */
  tokenTtlMs?: number;
  /** Largest request body read; larger ones get 413. */
  maxBodyBytes?: number;
  /** The directory of electronic receivers (Consulta Directorio); empty when absent. */
  directory?: (environment: Environment, rnc: string | null) => Promise<DirectoryEntry[]>;
  /** "Estatus Servicios" checks `Authorization: Apikey <this>` when set. */
  statusApiKey?: string | null;
  /** A maintenance window per environment, published by "Estatus Servicios"; the environment's services answer 503 during it. */
  maintenance?: Partial<Record<Environment, SimulatedWindow>>;
}

/** A failure to answer with instead of the service's own answer (tests of the client). */
export interface SimulatedFault {
  /** Only requests to this service; any service when absent. */
  service?: DgiiService | StatusService;
  /** How many requests it applies to (default 1). */
  times?: number;
  /** Wait this long before answering (or before the status below). */
  delayMs?: number;
  /** Answer with this status and a JSON message instead of the service's answer. */
  status?: number;
  /**
   * Handle the request as usual, then close the connection without answering: the request
   * took effect (an upload is received) but its answer is lost on the way back.
   */
  dropAnswer?: boolean;
  /** Handle the request as usual, then wait this long before answering (or dropping the answer). */
  holdAnswerMs?: number;
  /** Answer with this status and JSON body instead of the service's answer (the request is not handled). */
  answer?: { status: number; body: unknown };
}

export interface DgiiSimulator {
  listen(port: number, host: string): Promise<{ url: string }>;
  close(): Promise<void>;
  baseUrls(url: string): Record<Environment, string>;
  fcBaseUrls(url: string): Record<Environment, string>;
  /** Makes every issued token invalid, as if its hour had passed. */
  expireTokens(): void;
  injectFault(fault: SimulatedFault): void;
  /** Drops every injected fault not yet used up. */
  clearFaults(): void;
  counters(): SimulatorCounters;
  /** Lists (or replaces) a receiver in the directory, ahead of the configured source (for tests). */
  listInDirectory(entry: DirectoryEntry): void;
  /** trackIds of the e-CFs received with this RNCEmisor and eNCF, oldest first (for tests). */
  trackIdsOf(environment: Environment, rncEmisor: string, encf: string): string[];
  /** Publishes (or, with null, removes) the environment's maintenance window; its services answer 503 during it. */
  setMaintenance(environment: Environment, window: SimulatedWindow | null): void;
}

interface Route {
  service: DgiiService;
  method: 'GET' | 'POST';
  host: 'ecf' | 'fc';
  handler: Handler;
}

const ROUTES: readonly Route[] = [
  { service: 'seed', method: 'GET', host: 'ecf', handler: seedHandler },
  { service: 'validateSeed', method: 'POST', host: 'ecf', handler: validateSeedHandler },
  { service: 'recepcion', method: 'POST', host: 'ecf', handler: recepcionHandler },
  { service: 'estado', method: 'GET', host: 'ecf', handler: estadoHandler },
  { service: 'trackIds', method: 'GET', host: 'ecf', handler: trackIdsHandler },
  { service: 'rfce', method: 'POST', host: 'fc', handler: rfceHandler },
  { service: 'rfceStatus', method: 'GET', host: 'fc', handler: rfceStatusHandler },
  { service: 'anulacion', method: 'POST', host: 'ecf', handler: annulmentHandler },
  { service: 'directoryListing', method: 'GET', host: 'ecf', handler: directoryHandler(false) },
  { service: 'directoryByRnc', method: 'GET', host: 'ecf', handler: directoryHandler(true) },
  { service: 'consultaEstado', method: 'GET', host: 'ecf', handler: consultaEstadoHandler },
  { service: 'aprobacionComercial', method: 'POST', host: 'ecf', handler: aprobacionHandler },
  { service: 'timbre', method: 'GET', host: 'ecf', handler: timbreHandler },
  { service: 'timbreFc', method: 'GET', host: 'fc', handler: timbreHandler },
];

const PREFIX = /^\/(fc\/)?([a-z]+)(\/.*)$/;

function resolve(pathname: string): { route: Route; environment: Environment } | null {
  const m = PREFIX.exec(pathname.toLowerCase().replace(/\/+$/, ''));
  if (m === null) return null;
  const environment = parseEnvironment(m[2] ?? '');
  if (environment === null) return null;
  const host = m[1] === undefined ? 'ecf' : 'fc';
  const route = ROUTES.find((r) => r.host === host && DGII_PATHS[r.service].toLowerCase() === m[3]);
  // What DGII does not publish in an environment (CerteCF's withdrawn services) is not there.
  if (route === undefined || !publishes(environment, m[3]?.split('/')[1] ?? '')) return null;
  return { route, environment };
}

const DEFAULT_TOKEN_TTL_MS = 3_600_000;

export function createDgiiSimulator(options: DgiiSimulatorOptions): DgiiSimulator {
  const { processingMs, log } = options;
  const tokenTtlMs = options.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MULTIPART_LIMITS.maxBodyBytes;
  if (!(Number.isInteger(processingMs) && processingMs >= 0)) throw new RangeError('processingMs must be an integer >= 0');
  if (!(Number.isInteger(tokenTtlMs) && tokenTtlMs > 0)) throw new RangeError('tokenTtlMs must be a positive integer');
  const state = new SimulatorState(tokenTtlMs);
  const listed = new Map<string, DirectoryEntry>();
  const source = options.directory ?? (() => Promise.resolve([]));
  const directory = async (environment: Environment, rnc: string | null): Promise<DirectoryEntry[]> => {
    const extra = rnc === null ? [...listed.values()] : [listed.get(rnc)].filter((e): e is DirectoryEntry => e !== undefined);
    const rest = (await source(environment, rnc)).filter((e) => !listed.has(e.rnc));
    return [...extra, ...rest];
  };
  const faults: (SimulatedFault & { left: number })[] = [];
  const status = new SimulatedStatus(options.statusApiKey ?? null, options.maintenance);
  let server: Server | null = null;

  function takeFault(service: DgiiService | StatusService): SimulatedFault | null {
    const index = faults.findIndex((f) => f.service === undefined || f.service === service);
    if (index < 0) return null;
    const fault = faults[index] as SimulatedFault & { left: number };
    if (--fault.left <= 0) faults.splice(index, 1);
    return fault;
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<Reply | null> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://simulator.invalid');
    } catch {
      return errorReply(400, 'La dirección solicitada no es válida');
    }
    const statusService = statusServiceOf(url.pathname);
    if (statusService !== null) {
      if (req.method !== 'GET') return errorReply(405, 'Método no permitido; use GET', { allow: 'GET' });
      const fault = takeFault(statusService);
      if (fault?.delayMs !== undefined) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (fault?.status !== undefined) return errorReply(fault.status, `Fallo simulado (HTTP ${fault.status})`);
      if (fault?.answer !== undefined) return jsonReply(fault.answer.status, fault.answer.body);
      return status.handle(statusService, req, url, Date.now());
    }
    const resolved = resolve(url.pathname);
    if (resolved === null) return errorReply(404, 'Recurso no encontrado');
    const { route, environment } = resolved;
    if (req.method !== route.method) return errorReply(405, `Método no permitido; use ${route.method}`, { allow: route.method });
    // What DGII's services answer while down for a published window.
    if (status.inMaintenance(environment, Date.now())) return errorReply(503, 'El servicio se encuentra en mantenimiento; intente al terminar la ventana publicada');

    const fault = takeFault(route.service);
    if (fault?.delayMs !== undefined) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.status !== undefined) return errorReply(fault.status, `Fallo simulado (HTTP ${fault.status})`);
    if (fault?.answer !== undefined) return jsonReply(fault.answer.status, fault.answer.body);

    let body: Buffer = Buffer.alloc(0);
    if (route.method === 'POST') {
      try {
        body = await readBody(req, maxBodyBytes);
      } catch (err) {
        if (!(err instanceof BodyTooLarge)) return null; // the client went away
        // Stop reading: the connection closes once the answer is out.
        res.on('finish', () => req.destroy());
        return errorReply(413, `El cuerpo de la solicitud excede ${maxBodyBytes} bytes`, { connection: 'close' });
      }
    }
    const reply = await route.handler({ environment, env: state.environments[environment], state, req, url, body, now: Date.now(), processingMs, log, directory });
    if (fault?.holdAnswerMs !== undefined) await new Promise((r) => setTimeout(r, fault.holdAnswerMs));
    return fault?.dropAnswer === true ? null : reply;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const reply = await dispatch(req, res);
      if (reply !== null) send(res, reply);
      else res.destroy(); // the client went away, or a dropAnswer fault
    } catch (err) {
      log.error('simulator request failed', { err, method: req.method, url: req.url });
      send(res, errorReply(500, 'Error interno del simulador'));
    }
  }

  return {
    listen(port, host) {
      if (server !== null) return Promise.reject(new Error('the simulator is already listening'));
      const s = createServer({ maxHeaderSize: 16 * 1024 }, (req, res) => void handle(req, res));
      s.headersTimeout = 10_000;
      s.requestTimeout = 30_000;
      // Idle connections outlive the client's own idle close (fetch's 4 s): a client whose event
      // loop is busy past 5 s (synchronous signing, a loaded test machine) would otherwise reuse
      // a socket the server has just closed and see ECONNRESET.
      s.keepAliveTimeout = 60_000;
      server = s;
      return new Promise((resolvePromise, reject) => {
        s.once('error', reject);
        s.listen(port, host, () => {
          s.off('error', reject);
          const address = s.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          const url = `http://${shownHost}:${address.port}`;
          log.info('DGII simulator listening', { url, processingMs, sessionTtlMs: tokenTtlMs });
          resolvePromise({ url });
        });
      });
    },
    close() {
      const s = server;
      server = null;
      if (s === null) return Promise.resolve();
      return new Promise((resolvePromise) => {
        s.close(() => resolvePromise());
        s.closeAllConnections();
      });
    },
    baseUrls: (url) => Object.fromEntries(ENVIRONMENTS.map((e) => [e, `${url.replace(/\/+$/, '')}/${e.toLowerCase()}`])) as Record<Environment, string>,
    fcBaseUrls: (url) => Object.fromEntries(ENVIRONMENTS.map((e) => [e, `${url.replace(/\/+$/, '')}/fc/${e.toLowerCase()}`])) as Record<Environment, string>,
    expireTokens() {
      for (const e of ENVIRONMENTS) state.environments[e].expireTokens();
    },
    injectFault(fault) {
      faults.push({ ...fault, left: fault.times ?? 1 });
    },
    clearFaults() {
      faults.length = 0;
    },
    counters: () => ({ ...state.counters }),
    listInDirectory(entry) {
      listed.set(entry.rnc, entry);
    },
    trackIdsOf: (environment, rncEmisor, encf) => state.environments[environment].tracksOf(rncEmisor, encf).map((t) => t.trackId),
    setMaintenance: (environment, window) => status.set(environment, window),
  };
}
