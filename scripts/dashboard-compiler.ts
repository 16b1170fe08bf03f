import { readdir, readFile } from 'node:fs/promises';
import ts from 'typescript';

// Turns the dashboard's TypeScript into the browser JavaScript the service serves from
// src/dashboard/built/: one file at a time, types erased, `./x.ts` imports rewritten to
// `./x.js`, no bundler. Types are checked by `npm run typecheck`, not here. Used by
// scripts/build-dashboard.ts to write the files and by a test to prove they are current.

export const SOURCE_DIR = new URL('../src/dashboard/client/', import.meta.url);
export const BUILT_DIR = new URL('../src/dashboard/built/', import.meta.url);

/**
 * Modules of the e-CF model the page runs as they are, so that the form and the server share one
 * copy of DGII's arithmetic and check digits: each is pure (no imports but each other, nothing of
 * Node), built beside the page's own scripts under its own name, and the page's imports of
 * `../../ecf/x.ts` become `./x.js`.
 */
export const SHARED_DIR = new URL('../src/ecf/', import.meta.url);
export const SHARED_MODULES = ['decimal.ts', 'ecf-types.ts', 'tax-id.ts', 'totals.ts'] as const;
const SHARED_IMPORT = /(\b(?:from|import)\s*["'])\.\.\/\.\.\/ecf\/([\w-]+\.js)(["'])/g;
const RELATIVE_IMPORT = /\b(?:from|import)\s*["'](\.{1,2}\/[^"']+)["']/g;

function transpile(file: string, source: string): string {
  const out = ts.transpileModule(source, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ES2022,
      verbatimModuleSyntax: true,
      rewriteRelativeImportExtensions: true,
      removeComments: true,
      newLine: ts.NewLineKind.LineFeed,
    },
  });
  const problems = out.diagnostics ?? [];
  if (problems.length > 0) {
    const text = problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ');
    throw new Error(`cannot compile dashboard/client/${file}: ${text}`);
  }
  return out.outputText;
}

const banner = (source: string): string => `// Built from ${source} by \`npm run build:dashboard\`: edit that file, not this one.\n`;

/** Compiles every `.ts` file of `dir` (declaration files aside); maps each `.js` name to its text. */
export async function compileDashboard(dir: URL = SOURCE_DIR, shared: readonly string[] = dir.href === SOURCE_DIR.href ? SHARED_MODULES : []): Promise<Map<string, string>> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort();
  const built = new Map<string, string>();
  for (const file of files) {
    const text = transpile(file, await readFile(new URL(file, dir), 'utf8')).replace(SHARED_IMPORT, '$1./$2$3');
    built.set(`${file.slice(0, -'.ts'.length)}.js`, banner(`src/dashboard/client/${file}`) + text);
  }
  for (const file of shared) {
    const name = `${file.slice(0, -'.ts'.length)}.js`;
    if (built.has(name)) throw new Error(`dashboard/client/${file} has the name of the shared src/ecf/${file}`);
    built.set(name, banner(`src/ecf/${file}`) + transpile(file, await readFile(new URL(file, SHARED_DIR), 'utf8')));
  }
  // Every import must name a script that is built: a shared module importing anything else
  // (Node, a server module) would fail in the browser.
  for (const [name, text] of built) {
    for (const m of text.matchAll(RELATIVE_IMPORT)) {
      const target = m[1] ?? '';
      if (!target.startsWith('./') || !built.has(target.slice(2))) throw new Error(`${name} imports ${target}, which the dashboard does not serve`);
    }
  }
  return built;
}
