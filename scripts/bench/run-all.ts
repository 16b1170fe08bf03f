// npm run bench [-- name ...]: runs each benchmark in a process of its own, one after the
// other (they would disturb each other's figures), passes their output through, and ends
// with a summary of the headline figures. Benchmarks report speed; they never fail on it:
// the exit code is non-zero only when a benchmark could not run.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { ROOT } from './lib/processes.ts';
import { machine, table, type Cell, type Headline } from './lib/report.ts';

const BENCHMARKS = ['http-core', 'emit', 'pipeline', 'queue', 'webhooks', 'memory', 'pdf', 'export'] as const;

const asked = process.argv.slice(2);
const unknown = asked.filter((a) => !(BENCHMARKS as readonly string[]).includes(a));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark ${unknown.join(', ')}; choose from ${BENCHMARKS.join(', ')}\n`);
  process.exit(2);
}
const chosen = asked.length > 0 ? BENCHMARKS.filter((b) => asked.includes(b)) : [...BENCHMARKS];

async function runOne(name: string): Promise<{ headlines: Headline[]; ok: boolean }> {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, [file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let headlines: Headline[] = [];
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    process.stdout.write(d);
    buffer += d.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('{"bench":')) headlines = (JSON.parse(line) as { headlines: Headline[] }).headlines;
    }
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { headlines, ok: code === 0 };
}

const m = machine();
process.stdout.write(`# Benchmarks, ${new Date().toISOString()}\n${m.nproc} × ${m.cpu}, ${m.memGiB} GiB, Node ${m.node}\n`);
const rows: Cell[][] = [];
const failed: string[] = [];
for (const name of chosen) {
  const { headlines, ok } = await runOne(name);
  if (!ok) failed.push(name);
  for (const h of headlines) rows.push([name, h.figure, h.value, h.target, h.met === null ? null : h.met ? 'met' : 'MISSED']);
}
process.stdout.write(`\n## Summary\n\n${table(['benchmark', 'figure', 'value', 'target', 'result'], rows)}\n`);
if (failed.length > 0) {
  process.stderr.write(`\nthese benchmarks could not run: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
