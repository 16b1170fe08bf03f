import { parseArgs } from 'node:util';
import { createLogger, type Logger } from '../../log.ts';
import { createDgiiSimulator, type DgiiSimulator } from './server.ts';
import { errorMessage } from '../../errors.ts';

// The command line of the runnable simulator. Options come from arguments, not the
// environment: only src/config.ts reads environment variables.

export const SIMULATOR_USAGE = `Usage: node src/dgii/simulator/main.ts [--port 8090] [--host 127.0.0.1] [--processing-ms 2000] [--token-ttl-ms 3600000]`;

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
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: DEFAULTS.port },
        host: { type: 'string', default: DEFAULTS.host },
        'processing-ms': { type: 'string', default: DEFAULTS['processing-ms'] },
        'token-ttl-ms': { type: 'string', default: DEFAULTS['token-ttl-ms'] },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new SimulatorArgsError(`${errorMessage(err)}\n${SIMULATOR_USAGE}`);
  }
  const port = integer('port', values.port ?? DEFAULTS.port, 0, 65_535);
  const processingMs = integer('processing-ms', values['processing-ms'] ?? DEFAULTS['processing-ms'], 0, 3_600_000);
  const tokenTtlMs = integer('token-ttl-ms', values['token-ttl-ms'] ?? DEFAULTS['token-ttl-ms'], 1_000, 86_400_000);
  const host = values.host ?? DEFAULTS.host;
  if (host === '') throw new SimulatorArgsError(`--host must not be empty\n${SIMULATOR_USAGE}`);
  const simulator = createDgiiSimulator({ processingMs, tokenTtlMs, log });
  const { url } = await simulator.listen(port, host);
  return { simulator, url };
}
