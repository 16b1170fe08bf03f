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

export function createLogger(level: LogLevel, sink: LogSink = stdoutSink, base: LogFields = {}): Logger {
  const min = LEVEL_RANK[level];
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void => {
    if (LEVEL_RANK[lvl] < min) return;
    const entry = { time: new Date().toISOString(), level: lvl, msg, ...(redact({ ...base, ...fields }) as LogFields) };
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
