// Headless Chromium for the dashboard tests: Debian's chromium driven by playwright-core.
// Every page records its console errors, uncaught exceptions, CSP violations and every
// request it makes, so a test can assert the page ran cleanly and talked to nobody but its
// own service; screenshots go to test-artifacts/screenshots/.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './process.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-artifacts', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and warnings, uncaught exceptions and CSP violations, in order. */
  problems: string[];
  /** Every request the page made: method, full URL, path, and the status once answered. */
  requests: { method: string; url: string; path: string; status: number | null }[];
  close(): Promise<void>;
}

export const DESKTOP = { width: 1280, height: 860 } as const;
export const PHONE = { width: 360, height: 740 } as const;

export async function openPage(browser: Browser, viewport: { width: number; height: number } = DESKTOP, timezoneId = 'America/Santo_Domingo'): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, locale: 'es-DO', timezoneId, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: WatchedPage['requests'] = [];
  // Chromium reports violations on the console too; the event also catches report-only cases.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}`);
    });
  });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('request', (r) => {
    const entry = { method: r.method(), url: r.url(), path: new URL(r.url()).pathname, status: null as number | null };
    requests.push(entry);
    void r.response().then((res) => (entry.status = res?.status() ?? null), () => undefined);
  });
  return { page, context, problems, requests, close: () => context.close() };
}

/** Requests to any origin but the page's own (the first request's, its navigation); data: URLs fetch nothing. */
export function foreignRequests(w: WatchedPage): string[] {
  const first = w.requests[0];
  if (first === undefined) return [];
  const own = new URL(first.url).origin;
  return w.requests.map((r) => r.url).filter((url) => !url.startsWith('data:') && new URL(url).origin !== own);
}

/**
 * The problems a page logged, leaving out the browser's own "Failed to load resource" line
 * for the statuses a test provoked on purpose (a 401 before a refresh, a 403, a 422); and
 * every request that left the page's origin.
 */
export function unexpectedProblems(w: WatchedPage, expectedStatuses: readonly number[] = []): string[] {
  return [
    ...w.problems.filter((p) => !expectedStatuses.some((s) => p.includes(`the server responded with a status of ${s}`))),
    ...foreignRequests(w).map((url) => `request to another origin: ${url}`),
  ];
}

/** Opens a part of Configuración through the header, as a person would. */
export async function openSettings(page: Page, tab: 'Webhooks' | 'Entregas' | 'Certificado' | 'Claves API'): Promise<void> {
  await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Configuración' }).click();
  await page.getByRole('navigation', { name: 'Configuración' }).getByRole('link', { name: tab, exact: true }).click();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Whether the page scrolls sideways (the layout is wider than the viewport). */
export function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; width: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth }));
}

export async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

/** Signs in through the page and waits for the documents list it lands on. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/`);
  await heading(page, 'Ingresar');
  await page.getByLabel('Correo electrónico').fill(email);
  await page.getByLabel('Contraseña').fill(password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await heading(page, 'Documentos');
}

/** Waits until a table shows exactly `n` rows (the previous answer may still be on screen). */
export async function rows(page: Page, list: string, n: number): Promise<void> {
  await page.waitForFunction(([l, count]) => document.querySelectorAll(`table[data-list="${l}"] tbody tr`).length === count, [list, n] as const);
}

/** The estado badges of the documents table, by eNCF, in the order shown. */
export function listedEstados(page: Page): Promise<Record<string, string>> {
  return page.$$eval('table[data-list="documents"] tbody tr', (trs) => Object.fromEntries(trs.map((r) => [
    r.querySelector('a')?.textContent ?? '', r.querySelector('.badge')?.getAttribute('data-value') ?? '',
  ])));
}
