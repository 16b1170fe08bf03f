import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Every process a benchmark measures or drives runs apart from the benchmark script: the
// service (`src/main.ts`), the bare baseline servers and the connection holders. So the
// load generator never shares an event loop with what it measures.

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The checkout whose src/main.ts is measured: this one, or another to compare two builds. */
export const SERVICE_ROOT = process.env.BENCH_SERVICE_ROOT ?? ROOT;
const PEERS = fileURLToPath(new URL('../peers/', import.meta.url));

export interface Child {
  child: ChildProcess;
  pid: number;
  /** stderr (and stdout when piped), for the error message of a failed start. */
  output: string[];
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A memory figure of /proc/<pid>/status (VmRSS, VmHWM), in bytes. */
async function vmOf(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  if (m?.[1] === undefined) throw new Error(`no ${field} for process ${pid}`);
  return Number(m[1]) * 1024;
}

/** Resident set size of a process, in bytes (Linux /proc). */
export function rssOf(pid: number): Promise<number> {
  return vmOf(pid, 'VmRSS');
}

/** The highest RSS of a process since it started, or since resetPeakRss (VmHWM), in bytes. */
export function peakRssOf(pid: number): Promise<number> {
  return vmOf(pid, 'VmHWM');
}

/**
 * Starts a process's VmHWM again from its current RSS (writing 5 to /proc/<pid>/clear_refs,
 * Linux 4.0 and later; a process of the same user may). False where that is not allowed.
 */
export async function resetPeakRss(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Median of five RSS readings 200 ms apart: a process at rest, without a GC probe. */
export async function settledRss(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    readings.push(await rssOf(pid));
    await sleep(200);
  }
  return readings.sort((a, b) => a - b)[2] as number;
}

/** utime + stime of a /proc stat file (a process's or one thread's), in ms. */
async function statCpuMs(path: string): Promise<number> {
  const stat = await readFile(path, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU time a process has used so far, in ms (utime + stime from /proc/<pid>/stat). Divided
 * by the requests served in between it gives CPU per request, a figure that other load on
 * a shared machine barely moves (unlike requests per second).
 */
export async function cpuMsOf(pid: number): Promise<number> {
  const own = await statCpuMs(`/proc/${pid}/stat`);
  // Live child processes count too (the workers of WEB_CONCURRENCY > 1).
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter((c) => c !== '');
  let childMs = 0;
  for (const c of children) childMs += await cpuMsOf(Number(c)).catch(() => 0);
  return own + childMs;
}

/**
 * The CPU of a process's main thread alone (/proc/PID/task/PID/stat): for a Node process, its
 * event loop, which one process cannot spread over more cores; V8's helper threads and libuv's
 * pool are left out.
 */
export function mainThreadCpuMsOf(pid: number): Promise<number> {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Samples a process's RSS every `everyMs` until stopped; keeps the peak and the last value. */
export function sampleRss(pid: number, everyMs = 100): { stop(): Promise<{ peak: number; last: number; samples: number }> } {
  let peak = 0;
  let last = 0;
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        last = await rssOf(pid);
        peak = Math.max(peak, last);
        samples++;
      } catch {
        return;
      }
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { peak, last, samples };
    },
  };
}

/**
 * Preloaded into a service (`nodeArgs: ['--import', GC_PROBE]`): on SIGUSR2 it runs a full
 * garbage collection and prints the heap and RSS left as one JSON line on stderr.
 */
export const GC_PROBE = fileURLToPath(new URL('../../../test/faults/helpers/gc-probe.ts', import.meta.url));

export interface GcReading {
  heapUsed: number;
  rss: number;
}

/** Every reading the GC probe of `child` has printed so far, oldest first. */
export function gcReadings(child: Child): GcReading[] {
  return child.output.join('').split('\n').filter((l) => l.includes('{"gcProbe"')).map((l) => {
    const { heapUsed, rss } = JSON.parse(l.slice(l.indexOf('{"gcProbe"'))) as GcReading;
    return { heapUsed, rss };
  });
}

/** Asks the GC probe of `child` for a full collection and waits for its reading. */
export async function collectGarbage(child: Child): Promise<GcReading> {
  const seen = gcReadings(child).length;
  child.child.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    await sleep(50);
    const readings = gcReadings(child);
    if (readings.length > seen) return readings[readings.length - 1] as GcReading;
  }
  throw new Error('the GC probe did not answer');
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string, failed: () => string | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failure = failed();
    if (failure !== null) throw new Error(`${what}: ${failure}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms`);
    await sleep(100);
  }
}

export interface ServiceProcess extends Child {
  url: string;
  env: Record<string, string>;
  dataDir: string;
}

export const BENCH_MASTER_KEY = randomBytes(32).toString('hex');

/**
 * BENCH_SERVICE_ENV="DB_POOL_MAX=30 QUEUE_BATCH_SIZE=50" adds settings to every service a
 * benchmark starts (to try a change of configuration); the report names them.
 */
export const EXTRA_SERVICE_ENV: Record<string, string> = Object.fromEntries(
  (process.env.BENCH_SERVICE_ENV ?? '').split(/\s+/).filter((kv) => kv.includes('=')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

/**
 * Rate limits raised for the run (1,000,000 per minute, the configuration's maximum, in
 * every scope), so the benchmarks measure work rather than refusals.
 */
export const RAISED_RATE_LIMITS = {
  RATE_LIMIT_DEFAULT_PER_MINUTE: '1000000',
  RATE_LIMIT_EMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000000',
  RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000000',
  RATE_LIMIT_RECEIVER_PER_MINUTE: '1000000',
} as const;

/**
 * Starts `node src/main.ts` with `env` on a free port and waits for /healthz.
 * Its stdout (the JSON log, one access-log line per request at LOG_LEVEL=info) goes to
 * /dev/null, as a production log shipper's cost is not the service's. `nodeArgs` go before
 * the script (e.g. --cpu-prof to see where the time goes); `root` is the checkout to run.
 */
export async function startService(env: Record<string, string>, options: { nodeArgs?: string[]; root?: string } = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'ecf-bench-'));
  const full: Record<string, string> = {
    NODE_ENV: 'production',
    // The built-in simulator on purpose: production refuses to fall back to it silently.
    TAX_AUTHORITY: 'simulator',
    HOST: '127.0.0.1',
    PORT: String(port),
    ECF_MASTER_KEY: BENCH_MASTER_KEY,
    DATA_DIR: dataDir,
    // Sign-up and sign-in (setup only, never measured) hash passwords; keep them quick.
    // Production closes public sign-up by default; the benchmarks make their tenants through it.
    REGISTRATION_ENABLED: 'true',
    SCRYPT_LOG_N: '12',
    ...RAISED_RATE_LIMITS,
    ...env,
    ...EXTRA_SERVICE_ENV,
  };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'src/main.ts'], {
    cwd: options.root ?? SERVICE_ROOT,
    env: { PATH: process.env.PATH ?? '', ...full },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const output: string[] = [];
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = stopper(child);
  try {
    await waitUntil(async () => (await fetch(`${url}/healthz`)).status === 200, 60_000, 'service start', () =>
      child.exitCode !== null ? `exited with ${child.exitCode}:\n${output.join('')}` : null);
  } catch (err) {
    await stop();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    child, pid: child.pid as number, output, url, env: full, dataDir,
    stop: async () => {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface PeerProcess extends Child {
  /** The JSON object of the peer's first stdout line (its port, its counts...). */
  ready: Record<string, unknown>;
  /** Every later stdout line, parsed. */
  lines: Record<string, unknown>[];
}

/**
 * Starts one of `scripts/bench/peers/*.ts` in its own process. A peer announces itself with
 * one JSON line on stdout (e.g. {"port":1234}); later lines are collected in `lines`.
 */
export async function startPeer(name: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<PeerProcess> {
  return startPeerScript(join(PEERS, `${name}.ts`), env, timeoutMs);
}

/** startPeer for a script anywhere (the peer libraries' scripts live in their own folder). */
export async function startPeerScript(file: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<PeerProcess> {
  const name = file;
  const child = spawn(process.execPath, [file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const lines: Record<string, unknown>[] = [];
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`peer ${name} did not start:\n${output.join('')}`)), timeoutMs);
    let buffer = '';
    let first = true;
    child.stdout?.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (first) {
          first = false;
          clearTimeout(timer);
          resolve(parsed);
        } else {
          lines.push(parsed);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`peer ${name} exited with ${code}:\n${output.join('')}`));
    });
  });
  return { child, pid: child.pid as number, output, ready, lines, stop: stopper(child) };
}

/** Waits for a peer to print a line satisfying `test`. */
export async function waitForLine(peer: PeerProcess, test: (line: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await waitUntil(async () => (found = peer.lines.find(test)) !== undefined, timeoutMs, 'peer line', () =>
    peer.child.exitCode !== null ? `exited with ${peer.child.exitCode}:\n${peer.output.join('')}` : null);
  return found as Record<string, unknown>;
}

/** Runs a command to completion, returning its stdout; throws with stderr on a non-zero exit. */
export async function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  const [code] = (await once(child, 'exit')) as [number | null];
  const stdout = Buffer.concat(out).toString();
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}:\n${Buffer.concat(err).toString()}\n${stdout}`);
  return stdout;
}
