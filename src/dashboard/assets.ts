import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { Logger } from '../log.ts';

// The dashboard's files live in ./client as HTML, CSS and TypeScript. TypeScript is turned
// into browser JavaScript on first use with the compiler the project already has (one file at
// a time, types erased, `./x.ts` imports rewritten to `./x.js`), then kept in memory: there is
// no build step to forget and no bundler. Types are checked by `npm run typecheck` with the
// rest of src/.

export const CLIENT_DIR = new URL('./client/', import.meta.url);

/** How each kind of source file is served, by extension. Anything else in the folder is not served. */
const KINDS = {
  '.html': { servedAs: '.html', contentType: 'text/html; charset=utf-8' },
  '.css': { servedAs: '.css', contentType: 'text/css; charset=utf-8' },
  '.svg': { servedAs: '.svg', contentType: 'image/svg+xml' },
  '.ts': { servedAs: '.js', contentType: 'text/javascript; charset=utf-8' },
} as const;

type Extension = keyof typeof KINDS;

export interface Asset {
  /** The name it is served under, e.g. `main.js` for `main.ts`. */
  name: string;
  data: Buffer;
  contentType: string;
  etag: string;
}

function extensionOf(file: string): Extension | null {
  const dot = file.lastIndexOf('.');
  const ext = dot < 0 ? '' : file.slice(dot);
  return Object.hasOwn(KINDS, ext) && !file.endsWith('.d.ts') ? (ext as Extension) : null;
}

type TypeScript = typeof import('typescript');

async function loadTypeScript(): Promise<TypeScript> {
  const mod = await import('typescript');
  return (mod as { default?: TypeScript }).default ?? mod;
}

function transpile(ts: TypeScript, file: string, source: string): string {
  const out = ts.transpileModule(source, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ES2022,
      verbatimModuleSyntax: true,
      rewriteRelativeImportExtensions: true,
      removeComments: true,
    },
  });
  const problems = out.diagnostics ?? [];
  if (problems.length > 0) {
    const text = problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ');
    throw new Error(`cannot compile dashboard/client/${file}: ${text}`);
  }
  return out.outputText;
}

/** Reads and compiles every file of `dir`; the result maps served names to assets. */
export async function buildAssets(dir: URL = CLIENT_DIR): Promise<Map<string, Asset>> {
  const files = (await readdir(dir)).filter((f) => extensionOf(f) !== null).sort();
  const ts = files.some((f) => extensionOf(f) === '.ts') ? await loadTypeScript() : null;
  const assets = new Map<string, Asset>();
  for (const file of files) {
    const ext = extensionOf(file) as Extension;
    const kind = KINDS[ext];
    const source = await readFile(new URL(file, dir));
    const data = ext === '.ts' && ts !== null ? Buffer.from(transpile(ts, file, source.toString('utf8'))) : source;
    const name = file.slice(0, -ext.length) + kind.servedAs;
    const etag = `"${createHash('sha256').update(data).digest('base64url').slice(0, 27)}"`;
    assets.set(name, { name, data, contentType: kind.contentType, etag });
  }
  return assets;
}

/** Builds the assets once, on first use, and serves them from memory afterwards. */
export class DashboardAssets {
  private built: Promise<Map<string, Asset>> | null = null;

  constructor(
    private readonly log: Logger,
    private readonly dir: URL = CLIENT_DIR,
  ) {}

  async get(name: string): Promise<Asset | null> {
    this.built ??= buildAssets(this.dir).catch((err: unknown) => {
      // Forget the failure so a fixed file is picked up by the next request.
      this.built = null;
      this.log.error('dashboard assets failed to build', { err });
      throw err;
    });
    return (await this.built).get(name) ?? null;
  }
}
