import { fileURLToPath } from 'node:url';
import { run } from './processes.ts';

// Debian's wrk is the load generator: written in C, outside the service, one thread (the
// machine's other core is the server's). Its report is parsed into numbers here.

export const WRK_SCRIPTS = fileURLToPath(new URL('../wrk/', import.meta.url));

export interface WrkOptions {
  url: string;
  connections: number;
  durationSec: number;
  threads?: number;
  /** A Lua script under scripts/bench/wrk/. */
  script?: string;
  headers?: Record<string, string>;
  /** Read by the Lua script with os.getenv. */
  env?: Record<string, string>;
  timeoutSec?: number;
}

export interface WrkResult {
  requests: number;
  durationSec: number;
  rps: number;
  latencyMs: { p50: number; p75: number; p90: number; p99: number; avg: number; max: number };
  /** Responses outside 2xx/3xx, plus connect/read/write/timeout socket errors. */
  errors: number;
  non2xx: number;
  socketErrors: number;
}

const TIME_UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function toMs(value: string, unit: string): number {
  const factor = TIME_UNITS[unit];
  if (factor === undefined) throw new Error(`unknown wrk time unit ${unit}`);
  return Number(value) * factor;
}

function percentile(text: string, p: number): number {
  const m = new RegExp(`^\\s+${p}(?:\\.0+)?%\\s+([\\d.]+)(us|ms|s|m|h)\\s*$`, 'm').exec(text);
  if (m?.[1] === undefined || m[2] === undefined) throw new Error(`wrk output has no ${p}% latency:\n${text}`);
  return toMs(m[1], m[2]);
}

/** Parses wrk's report (run with --latency). */
export function parseWrk(text: string): WrkResult {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m|h)/.exec(text);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const latency = /Latency\s+([\d.]+)(us|ms|s|m|h)\s+[\d.]+\w+\s+([\d.]+)(us|ms|s|m|h)/.exec(text);
  if (total === null || rps === null || latency === null) throw new Error(`unexpected wrk output:\n${text}`);
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = sockets === null ? 0 : sockets.slice(1).reduce((sum, n) => sum + Number(n), 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  return {
    requests: Number(total[1]),
    durationSec: toMs(total[2] as string, total[3] as string) / 1000,
    rps: Number(rps[1]),
    latencyMs: {
      p50: percentile(text, 50),
      p75: percentile(text, 75),
      p90: percentile(text, 90),
      p99: percentile(text, 99),
      avg: toMs(latency[1] as string, latency[2] as string),
      max: toMs(latency[3] as string, latency[4] as string),
    },
    errors: non2xx + socketErrors,
    non2xx,
    socketErrors,
  };
}

export async function wrk(o: WrkOptions): Promise<WrkResult> {
  const args = ['-t', String(o.threads ?? 1), '-c', String(o.connections), '-d', `${o.durationSec}s`, '--latency', '--timeout', `${o.timeoutSec ?? 10}s`];
  if (o.script !== undefined) args.push('-s', `${WRK_SCRIPTS}${o.script}`);
  for (const [name, value] of Object.entries(o.headers ?? {})) args.push('-H', `${name}: ${value}`);
  args.push(o.url);
  return parseWrk(await run('wrk', args, o.env));
}

/** wrk's settings as one string for the report. */
export function describeWrk(o: Pick<WrkOptions, 'connections' | 'durationSec' | 'threads'>): string {
  return `wrk -t${o.threads ?? 1} -c${o.connections} -d${o.durationSec}s`;
}
