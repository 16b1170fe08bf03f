import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// The layers of docs/architecture.md, read from the import lines of src/: each module may
// import only modules of a lower rank (or itself), and a feature never reads another
// feature's queries.ts. The ranks are finer than the four layers the docs name, so that
// the foundation and the infrastructure are ordered inside too (log.ts below config.ts,
// http/ below metrics/).

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

const RANKS: Readonly<Record<string, number>> = {
  // foundation
  'errors.ts': 0,
  'lib/': 1,
  'xml/': 1,
  'log.ts': 2,
  'environments.ts': 2,
  'crypto/': 3,
  // the checks of config.ts's values, which config.ts imports
  'config/': 3.5,
  'config.ts': 4,
  'db/': 5,
  // infrastructure
  'ratelimit/': 10,
  'queue/': 10,
  'events/': 10,
  'http/': 11,
  'metrics/': 12,
  // the e-CF model
  'ecf/': 20,
  // features: equal rank; see FEATURE_ORDER below
  'approvals/': 30,
  'auth/': 30,
  'certificates/': 30,
  'certification/': 30,
  'dashboard/': 30,
  'dgii/': 30,
  'documents/': 30,
  'exchange/': 30,
  'idempotency/': 30,
  'invoicing/': 30,
  'maintenance/': 30,
  'receiver/': 30,
  'sequences/': 30,
  'system/': 30,
  'webhooks/': 30,
  // what wires them
  'app.ts': 40,
  'cli/': 40,
  'main.ts': 41,
};

const FOUNDATION_MAX = 5;
const INFRASTRUCTURE_MAX = 12;
const FEATURE = 30;

/** Every .ts file under src/. */
function sources(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The top-level module of a file: "http/" for src/http/server.ts, "app.ts" for src/app.ts. */
function moduleOf(file: string): string {
  const [first, ...rest] = relative(SRC, file).split('/');
  return rest.length === 0 ? (first as string) : `${first}/`;
}

interface Edge { from: string; to: string; line: string }

/** Relative imports of src/ (static, re-exports and dynamic), resolved to files. */
function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of sources()) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\b[^'"]*?from\s+['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/gm)) {
      const spec = (m[1] ?? m[2]) as string;
      out.push({ from: file, to: resolve(dirname(file), spec), line: m[0] });
    }
  }
  return out;
}

const all = edges();

function goesUp(e: Edge): boolean {
  const from = moduleOf(e.from);
  const to = moduleOf(e.to);
  if (from === to) return false;
  const a = RANKS[from] ?? Infinity;
  const b = RANKS[to] ?? Infinity;
  // Features may use each other's services (never queries.ts, checked below).
  return a === FEATURE && b === FEATURE ? false : b >= a;
}
const show = (e: Edge): string => `${relative(SRC, e.from)} imports ${relative(SRC, e.to)}`;

describe('architecture', () => {
  it('knows the layer of every top-level module of src/', () => {
    const unknown = [...new Set(sources().map(moduleOf))].filter((m) => RANKS[m] === undefined);
    assert.deepEqual(unknown, [], 'add new top-level modules to RANKS and to docs/architecture.md');
  });

  it('has imports that only go down', () => {
    assert.deepEqual(all.filter(goesUp).map(show), []);
  });

  it('keeps the foundation free of infrastructure, the e-CF model and features', () => {
    const bad = all.filter((e) => (RANKS[moduleOf(e.from)] ?? 0) <= FOUNDATION_MAX && (RANKS[moduleOf(e.to)] ?? 0) > FOUNDATION_MAX);
    assert.deepEqual(bad.map(show), []);
  });

  it('keeps the infrastructure and the e-CF model free of features', () => {
    const bad = all.filter((e) => (RANKS[moduleOf(e.from)] ?? 0) <= 20 && (RANKS[moduleOf(e.to)] ?? 0) >= FEATURE);
    assert.deepEqual(bad.map(show), []);
    const ecfUp = all.filter((e) => moduleOf(e.from) === 'ecf/' && (RANKS[moduleOf(e.to)] ?? 0) > FOUNDATION_MAX && moduleOf(e.to) !== 'ecf/');
    assert.deepEqual(ecfUp.map(show), [], 'ecf/ imports only the foundation');
    assert.ok(INFRASTRUCTURE_MAX < 20);
  });

  it('never lets a feature read another feature\'s queries.ts', () => {
    const bad = all.filter((e) => RANKS[moduleOf(e.from)] === FEATURE && moduleOf(e.from) !== moduleOf(e.to) && /queries\.ts$/.test(e.to) && RANKS[moduleOf(e.to)] === FEATURE);
    assert.deepEqual(bad.map(show), []);
  });

  it('keeps HTTP out of the domain code (a feature\'s service.ts and queries.ts)', () => {
    const bad = all.filter((e) => /\/(service|queries)\.ts$/.test(e.from) && moduleOf(e.to) === 'http/');
    assert.deepEqual(bad.map(show), []);
    const nodeHttp = sources().filter((f) => /\/(service|queries)\.ts$/.test(f) && /from 'node:https?'/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(nodeHttp.map((f) => relative(SRC, f)), []);
  });

  it('has no cycles between features', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of all) {
      const from = moduleOf(e.from);
      const to = moduleOf(e.to);
      if (from !== to && RANKS[from] === FEATURE && RANKS[to] === FEATURE) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
    const cycles: string[] = [];
    const visit = (node: string, path: string[]): void => {
      if (path.includes(node)) { cycles.push([...path.slice(path.indexOf(node)), node].join(' → ')); return; }
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    };
    for (const node of graph.keys()) visit(node, []);
    assert.deepEqual(cycles, []);
  });

  it('flags the upward imports the structure once had', () => {
    const edge = (from: string, to: string): Edge => ({ from: join(SRC, from), to: join(SRC, to), line: '' });
    assert.ok(goesUp(edge('log.ts', 'config.ts')));
    assert.ok(goesUp(edge('config.ts', 'dgii/protocol/paths.ts')));
    assert.ok(goesUp(edge('http/types.ts', 'auth/principal.ts')));
    assert.ok(goesUp(edge('metrics/metrics.ts', 'webhooks/queries.ts')));
    assert.ok(goesUp(edge('ecf/xml/arecf.ts', 'documents/views.ts')));
    assert.ok(!goesUp(edge('documents/service.ts', 'ecf/validation/index.ts')));
    assert.ok(!goesUp(edge('receiver/views.ts', 'documents/views.ts')));
  });
});
