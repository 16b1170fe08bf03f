import { readdir, readFile } from 'node:fs/promises';
import ts from 'typescript';

// Turns the dashboard's TypeScript into the browser JavaScript the service serves from
// src/dashboard/built/: one file at a time, types erased, `./x.ts` imports rewritten to
// `./x.js`, no bundler. Types are checked by `npm run typecheck`, not here. Used by
// scripts/build-dashboard.ts to write the files and by a test to prove they are current.

export const SOURCE_DIR = new URL('../src/dashboard/client/', import.meta.url);
export const BUILT_DIR = new URL('../src/dashboard/built/', import.meta.url);

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
  return `// Built from src/dashboard/client/${file} by \`npm run build:dashboard\`: edit that file, not this one.\n${out.outputText}`;
}

/** Compiles every `.ts` file of `dir` (declaration files aside); maps each `.js` name to its text. */
export async function compileDashboard(dir: URL = SOURCE_DIR): Promise<Map<string, string>> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort();
  const built = new Map<string, string>();
  for (const file of files) {
    built.set(`${file.slice(0, -'.ts'.length)}.js`, transpile(file, await readFile(new URL(file, dir), 'utf8')));
  }
  return built;
}
