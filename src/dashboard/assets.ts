import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { Logger } from '../log.ts';

// The dashboard's files are served as they are on disk, with no compiler at run time: HTML, CSS
// and the icon from ./client, and the scripts from ./built, which holds the browser JavaScript
// that `npm run build:dashboard` makes from ./client's TypeScript. Those built files are part
// of the repository, and a test fails whenever one differs from what its source compiles to.

export const CLIENT_DIR = new URL('./client/', import.meta.url);
export const BUILT_DIR = new URL('./built/', import.meta.url);

/** How each kind of file is served, by extension. Anything else in the folders is not served. */
const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.js': 'text/javascript; charset=utf-8',
} as const;

type Extension = keyof typeof CONTENT_TYPES;

export interface Asset {
  /** The name it is served under, e.g. `main.js`. */
  name: string;
  data: Buffer;
  contentType: string;
  etag: string;
}

function extensionOf(file: string): Extension | null {
  const dot = file.lastIndexOf('.');
  const ext = dot < 0 ? '' : file.slice(dot);
  return Object.hasOwn(CONTENT_TYPES, ext) ? (ext as Extension) : null;
}

/** Reads every servable file of `dirs`; the result maps served names to assets. */
export async function loadAssets(dirs: readonly URL[] = [CLIENT_DIR, BUILT_DIR]): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const dir of dirs) {
    for (const name of (await readdir(dir)).sort()) {
      const ext = extensionOf(name);
      if (ext === null) continue;
      if (assets.has(name)) throw new Error(`dashboard file ${name} is in two folders`);
      const data = await readFile(new URL(name, dir));
      const etag = `"${createHash('sha256').update(data).digest('base64url').slice(0, 27)}"`;
      assets.set(name, { name, data, contentType: CONTENT_TYPES[ext], etag });
    }
  }
  return assets;
}

/** Reads the assets once, on first use, and serves them from memory afterwards. */
export class DashboardAssets {
  private loaded: Promise<Map<string, Asset>> | null = null;
  private readonly log: Logger;
  private readonly dirs: readonly URL[];

  constructor(log: Logger, dirs: readonly URL[] = [CLIENT_DIR, BUILT_DIR]) {
    this.log = log;
    this.dirs = dirs;
  }

  async get(name: string): Promise<Asset | null> {
    this.loaded ??= loadAssets(this.dirs).catch((err: unknown) => {
      // Forget the failure so a fixed folder is picked up by the next request.
      this.loaded = null;
      this.log.error('dashboard assets failed to load', { err });
      throw err;
    });
    return (await this.loaded).get(name) ?? null;
  }
}
