import type { Api } from './api.ts';
import type { Environment } from './labels.ts';

// What a page gets from the router. A page renders into `root`; when the person navigates
// away `signal` aborts, which stops its polling and cancels its pending reads.

export interface PageContext {
  root: HTMLElement;
  /** The page's h1, already in place (focused after a navigation); pages may retitle it. */
  heading: HTMLHeadingElement;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  signal: AbortSignal;
  api: Api;
  env: Environment;
  navigate(hash: string): void;
}

export type PageRenderer = (ctx: PageContext) => Promise<void>;

/** Where each page lives (without the leading #); the settings pages share one section. */
export const PATHS = {
  documents: '/documentos',
  overview: '/resumen',
  received: '/recibidos',
  sequences: '/secuencias',
  certification: '/certificacion',
  settings: '/configuracion',
  webhooks: '/configuracion/webhooks',
  deliveries: '/configuracion/entregas',
  certificate: '/configuracion/certificado',
  keys: '/configuracion/claves',
  printing: '/configuracion/impresion',
  newInvoice: '/nueva-factura',
  saved: '/guardados',
} as const;

/** `#/documentos?estado=aceptado` from a path and the non-empty values of `query`. */
export function hashOf(path: string, query: Record<string, string | null | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return `#${path}${s === '' ? '' : `?${s}`}`;
}

/**
 * Calls `step` every `ms` until it answers false or the page is left. Waits for each step
 * to finish before scheduling the next, so a slow answer never piles up requests.
 */
export function poll(signal: AbortSignal, ms: number, step: () => Promise<boolean>): void {
  const tick = (): void => {
    if (signal.aborted) return;
    const timer = setTimeout(() => {
      step().then((again) => (again ? tick() : undefined), () => tick());
    }, ms);
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  };
  tick();
}

/**
 * Keyset paging goes forward only, so "previous" needs the cursors already used: the trail
 * holds the cursor of every page from the first (null) to the current one. It is kept per
 * filter set, so coming back from a detail page returns to the same page.
 */
export class CursorTrail {
  private key = '';
  private cursors: (string | null)[] = [null];

  /** Starts over when the filters differ from the last ones seen. */
  use(key: string): this {
    if (key !== this.key) {
      this.key = key;
      this.cursors = [null];
    }
    return this;
  }

  get cursor(): string | null {
    return this.cursors[this.cursors.length - 1] ?? null;
  }

  get page(): number {
    return this.cursors.length;
  }

  get hasPrevious(): boolean {
    return this.cursors.length > 1;
  }

  next(cursor: string): void {
    this.cursors.push(cursor);
  }

  previous(): void {
    if (this.cursors.length > 1) this.cursors.pop();
  }
}
