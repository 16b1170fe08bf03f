import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

// What every benchmark prints: a title, notes on the conditions, a table for people, and
// one JSON line (starting with {"bench":) for machines; run-all.ts collects those lines.

export type Cell = string | number | null;

/** One headline figure of a benchmark for run-all's summary. */
export interface Headline {
  figure: string;
  value: string;
  target: string | null;
  met: boolean | null;
}

export interface Report {
  bench: string;
  title: string;
  /** Conditions of the run: settings, log level, what was disabled and why. */
  notes: string[];
  columns: string[];
  rows: Cell[][];
  /** Everything measured, for the JSON line. */
  data: Record<string, unknown>;
  headlines: Headline[];
}

export function machine(): { nproc: number; memGiB: number; cpu: string; node: string; loadavg: number[] } {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {
    // not Linux: keep os.cpus()
  }
  // The load average shows how much else ran on the machine meanwhile (others' work adds noise).
  return { nproc: cpus().length, memGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10, cpu, node: process.version, loadavg: loadavg().map((l) => round(l, 2)) };
}

function show(cell: Cell): string {
  if (cell === null) return '–';
  if (typeof cell === 'string') return cell;
  if (Number.isInteger(cell)) return cell.toLocaleString('en-US');
  return Math.abs(cell) >= 100 ? Math.round(cell).toLocaleString('en-US') : cell.toFixed(Math.abs(cell) >= 10 ? 1 : 2);
}

/** A Markdown table; columns holding only numbers (and blanks) are right-aligned. */
export function table(columns: string[], rows: Cell[][]): string {
  const text = [columns, ...rows.map((r) => r.map(show))];
  const widths = columns.map((_, i) => Math.max(...text.map((r) => (r[i] ?? '').length)));
  const numeric = columns.map((_, i) => rows.every((r) => typeof r[i] === 'number' || r[i] === null || r[i] === undefined));
  const line = (r: string[]) => `| ${r.map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  return [line(columns), `|${widths.map((w, i) => `${'-'.repeat(w + 1)}${numeric[i] ? ':' : '-'}`).join('|')}|`, ...text.slice(1).map(line)].join('\n');
}

export function print(report: Report): void {
  const m = machine();
  const extra = process.env.BENCH_SERVICE_ENV ?? '';
  const notes = [...report.notes, ...(extra.trim() === '' ? [] : [`BENCH_SERVICE_ENV added to every service: ${extra.trim()}`])];
  notes.push(`machine: ${m.nproc} × ${m.cpu}, ${m.memGiB} GiB, Node ${m.node}; load average (1/5/15 min) at the end: ${m.loadavg.join(' / ')}`);
  const out = [`\n## ${report.title}`, ...notes.map((n) => `- ${n}`), '', table(report.columns, report.rows), ''];
  process.stdout.write(`${out.join('\n')}\n`);
  process.stdout.write(`${JSON.stringify({ bench: report.bench, machine: m, at: new Date().toISOString(), ...(extra.trim() === '' ? {} : { serviceEnv: extra.trim() }), headlines: report.headlines, ...report.data })}\n`);
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function mib(bytes: number): number {
  return round(bytes / 2 ** 20, 1);
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The element of `items` whose `key` is the median (the lower one for an even count). */
export function medianBy<T>(items: T[], key: (t: T) => number): T {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  const m = sorted[Math.floor((sorted.length - 1) / 2)];
  if (m === undefined) throw new Error('median of nothing');
  return m;
}

/** "met" / "MISSED" against a target, for the tables. */
export function verdict(ok: boolean): string {
  return ok ? 'met' : 'MISSED';
}

/** Reads a positive integer setting of a benchmark from the environment. */
export function setting(name: string, def: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer (got "${v}")`);
  return n;
}
