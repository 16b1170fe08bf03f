import { writeSync } from 'node:fs';

// One JSON object per line. Field values whose key looks like a credential are replaced
// before serialisation, so a careless call site cannot leak a secret into the log.

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEY = /pass(word)?|secret|token|authorization|api[-_]?key|cookie|private|signature|^key$/i;

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export type LogSink = (line: string) => void;

// Lines are gathered and written once per turn of the event loop: a write per line is a
// system call per request, which cost more than the rest of a cheap request together. What
// is still gathered when the process exits (process.exit included) is written synchronously;
// only a SIGKILL can lose it, one turn's worth at most.
let gathered: string[] = [];
let flushScheduled = false;
let exitHookInstalled = false;

function flushStdout(): void {
  flushScheduled = false;
  if (gathered.length === 0) return;
  const chunk = gathered.join('');
  gathered = [];
  process.stdout.write(chunk);
}

const stdoutSink: LogSink = (line) => {
  gathered.push(line);
  if (!flushScheduled) {
    flushScheduled = true;
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', flushStdoutSync);
    }
    setImmediate(flushStdout);
  }
};

function flushStdoutSync(): void {
  if (gathered.length === 0) return;
  const chunk = gathered.join('');
  gathered = [];
  writeSync(1, chunk);
}

function redact(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code, stack: value.stack };
  }
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

/**
 * Whether a field name is a credential's. Field names are the code's own, a few dozen, so
 * the answer is remembered (up to a bound, in case a caller passes data as fields) instead
 * of running the pattern on every field of every line.
 */
const secretKeys = new Map<string, boolean>();
function isSecretKey(key: string): boolean {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    secret = SECRET_KEY.test(key);
    if (secretKeys.size < 1_000) secretKeys.set(key, secret);
  }
  return secret;
}

function copyRedacted(from: LogFields, to: LogFields): void {
  for (const k in from) {
    const v = from[k];
    to[k] = isSecretKey(k) ? '[redacted]' : v === null || typeof v !== 'object' ? v : redact(v, 1);
  }
}

// One ISO time string per millisecond: a busy service writes many lines in the same one.
let lastMs = -1;
let lastIso = '';
function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

export function createLogger(level: LogLevel, sink: LogSink = stdoutSink, base: LogFields = {}): Logger {
  const min = LEVEL_RANK[level];
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void => {
    if (LEVEL_RANK[lvl] < min) return;
    const entry: LogFields = { time: isoNow(), level: lvl, msg };
    copyRedacted(base, entry);
    if (fields !== undefined) copyRedacted(fields, entry);
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      line = JSON.stringify({ time: entry.time, level: lvl, msg, note: 'fields not serialisable' });
    }
    sink(line + '\n');
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(level, sink, { ...base, ...fields }),
  };
}
