import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readDirectoryAnswer, type DirectoryEntry } from '../protocol/exchange-answers.ts';
import { createLogger, type Logger } from '../../log.ts';
import { createDgiiSimulator, type DgiiSimulator } from './server.ts';
import { checkWindow, type SimulatedWindow } from './status.ts';
import { type Environment, parseEnvironment } from '../../environments.ts';
import { errorMessage } from '../../errors.ts';

// The command line of the runnable simulator. Options come from arguments, not the
// environment: only src/config.ts reads environment variables.

export const SIMULATOR_USAGE = `Usage: node src/dgii/simulator/main.ts [--port 8090] [--host 127.0.0.1] [--processing-ms 2000] [--token-ttl-ms 3600000] [--directory RNC=URL]... [--directory-without-auth RNC=URL]... [--directory-file entries.json] [--maintenance ENV=START/END]... [--status-api-key KEY]

  --maintenance TesteCF=+0m/+30m   publishes a maintenance window for the environment (TesteCF,
                                   CerteCF or eCF) in "Estatus Servicios"; its services answer 503
                                   during it. START and END are ISO 8601 instants
                                   (2026-05-02T13:00:00-04:00) or +N[s|m|h] from now; at most 24 h.
  --status-api-key KEY             "Estatus Servicios" requires Authorization: Apikey KEY.`;

const DEFAULTS = { port: '8090', host: '127.0.0.1', 'processing-ms': '2000', 'token-ttl-ms': '3600000' } as const;

export class SimulatorArgsError extends Error {
  override name = 'SimulatorArgsError';
}

function integer(name: string, text: string, min: number, max: number): number {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new SimulatorArgsError(`--${name} must be an integer from ${min} to ${max}, got "${text}"\n${SIMULATOR_USAGE}`);
  return value;
}

export interface RunningSimulator {
  simulator: DgiiSimulator;
  url: string;
}

/** Parses the arguments and starts the simulator; throws SimulatorArgsError for bad arguments. */
export async function runSimulatorFromArgs(argv: string[], log: Logger = createLogger('info')): Promise<RunningSimulator> {
  let values: Record<string, string | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: DEFAULTS.port },
        host: { type: 'string', default: DEFAULTS.host },
        'processing-ms': { type: 'string', default: DEFAULTS['processing-ms'] },
        'token-ttl-ms': { type: 'string', default: DEFAULTS['token-ttl-ms'] },
        directory: { type: 'string', multiple: true },
        'directory-without-auth': { type: 'string', multiple: true },
        'directory-file': { type: 'string' },
        maintenance: { type: 'string', multiple: true },
        'status-api-key': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new SimulatorArgsError(`${errorMessage(err)}\n${SIMULATOR_USAGE}`);
  }
  const one = (name: keyof typeof DEFAULTS): string => {
    const v = values[name];
    return typeof v === 'string' ? v : DEFAULTS[name];
  };
  const port = integer('port', one('port'), 0, 65_535);
  const processingMs = integer('processing-ms', one('processing-ms'), 0, 3_600_000);
  const tokenTtlMs = integer('token-ttl-ms', one('token-ttl-ms'), 1_000, 86_400_000);
  const host = one('host');
  const file = values['directory-file'];
  const entries = [...directoryFlags(values.directory, true), ...directoryFlags(values['directory-without-auth'], false), ...(typeof file === 'string' ? directoryFile(file) : [])];
  if (host === '') throw new SimulatorArgsError(`--host must not be empty\n${SIMULATOR_USAGE}`);
  const maintenance = maintenanceFlags(values.maintenance, Date.now());
  const apiKey = values['status-api-key'];
  if (apiKey === '') throw new SimulatorArgsError(`--status-api-key must not be empty\n${SIMULATOR_USAGE}`);
  const simulator = createDgiiSimulator({ processingMs, tokenTtlMs, log, directory: staticDirectory(entries), maintenance, statusApiKey: typeof apiKey === 'string' ? apiKey : null });
  const { url } = await simulator.listen(port, host);
  return { simulator, url };
}

/** An ISO 8601 instant with its offset, or +N[s|m|h] after `now`. */
function instant(text: string, now: number): number | null {
  const relative = /^\+(\d{1,6})([smh])$/.exec(text);
  if (relative !== null) return now + Number(relative[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[relative[2] as 's' | 'm' | 'h'];
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : at;
}

/** `ENV=START/END`: one window per environment. */
function maintenanceFlags(flags: string | string[] | undefined, now: number): Partial<Record<Environment, SimulatedWindow>> {
  const list = flags === undefined ? [] : Array.isArray(flags) ? flags : [flags];
  const out: Partial<Record<Environment, SimulatedWindow>> = {};
  for (const flag of list) {
    const m = /^([A-Za-z]+)=([^/]+)\/([^/]+)$/.exec(flag);
    const environment = m === null ? null : parseEnvironment(m[1] as string);
    const start = m === null ? null : instant(m[2] as string, now);
    const end = m === null ? null : instant(m[3] as string, now);
    if (environment === null || start === null || end === null) throw new SimulatorArgsError(`--maintenance must be ENV=START/END (ENV TesteCF, CerteCF or eCF; START and END ISO 8601 instants with an offset or +N[s|m|h]), got "${flag}"\n${SIMULATOR_USAGE}`);
    if (out[environment] !== undefined) throw new SimulatorArgsError(`--maintenance names ${environment} twice: the simulator publishes one window per environment`);
    try {
      checkWindow({ start, end });
    } catch (err) {
      throw new SimulatorArgsError(`--maintenance ${flag}: ${errorMessage(err)}`);
    }
    out[environment] = { start, end };
  }
  return out;
}

/**
 * `RNC=URL`: a receiver whose reception, approval and authentication bases are all URL; without
 * `withAuth` (--directory-without-auth) its urlOpcional is empty, as for a receiver that takes
 * uploads without the optional authentication.
 */
function directoryFlags(flags: string | string[] | undefined, withAuth: boolean): DirectoryEntry[] {
  const name = withAuth ? '--directory' : '--directory-without-auth';
  const list = flags === undefined ? [] : Array.isArray(flags) ? flags : [flags];
  return list.map((flag) => {
    const m = /^(\d{9}|\d{11})=(https?:\/\/\S+)$/.exec(flag);
    if (m === null) throw new SimulatorArgsError(`${name} must be RNC=URL (9 or 11 digits, an http(s) URL), got "${flag}"\n${SIMULATOR_USAGE}`);
    const url = (m[2] as string).replace(/\/+$/, '');
    return { nombre: '', rnc: m[1] as string, urlRecepcion: url, urlAceptacion: url, urlOpcional: withAuth ? url : null };
  });
}

/** A JSON file in DGII's directory shape: a list of { nombre, rnc, urlRecepcion, urlAceptacion, urlOpcional }. */
function directoryFile(path: string): DirectoryEntry[] {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (err) {
    throw new SimulatorArgsError(`--directory-file ${path}: ${errorMessage(err)}`);
  }
  const read = readDirectoryAnswer(body);
  if ('problem' in read) throw new SimulatorArgsError(`--directory-file ${path}: ${read.problem}`);
  return read.entries;
}

/** The same entries in every environment. */
export function staticDirectory(entries: DirectoryEntry[]): (environment: string, rnc: string | null) => Promise<DirectoryEntry[]> {
  return (_environment, rnc) => Promise.resolve(rnc === null ? entries : entries.filter((e) => e.rnc === rnc));
}
