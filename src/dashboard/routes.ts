import { AppError, errorEnvelope } from '../errors.ts';
import { envelope, S } from '../http/openapi.ts';
import { ok } from '../http/reply.ts';
import { header, type RequestContext, type Reply, type Route } from '../http/types.ts';
import type { Asset, DashboardAssets } from './assets.ts';
import { CACHE_CONTROL, SECURITY_HEADERS } from './headers.ts';

export interface DashboardRouteDeps {
  assets: DashboardAssets;
  /** Whether POST /{env}/customer/register is open; the sign-in page hides sign-up when not. */
  registrationEnabled: boolean;
  /** SEQUENCE_EXPIRY_WARNING_DAYS: the sequences page flags a range expiring within it. */
  sequenceExpiryWarningDays?: number;
}

const HOME = '/dashboard/';
const INDEX = 'index.html';

/** True when If-None-Match names the asset's current ETag (or is `*`). */
function unchanged(ctx: RequestContext, asset: Asset): boolean {
  const presented = header(ctx.headers, 'if-none-match');
  if (presented === undefined) return false;
  return presented.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === asset.etag || t === `W/${asset.etag}`;
  });
}

function serve(ctx: RequestContext, asset: Asset, cacheControl: string): Reply {
  const headers = { ...SECURITY_HEADERS, 'cache-control': cacheControl, etag: asset.etag };
  if (unchanged(ctx, asset)) return { status: 304, headers };
  return { status: 200, raw: { data: asset.data, contentType: asset.contentType }, headers };
}

/** A 404 in the API's error envelope, but with the page's headers like every dashboard answer. */
function notFound(name: string): Reply {
  return {
    status: 404,
    body: errorEnvelope(new AppError('NOT_FOUND', `The dashboard has no file named ${name.slice(0, 100)}`)),
    headers: { ...SECURITY_HEADERS, 'cache-control': 'no-store' },
  };
}

const PAGE_HEADERS = {
  'Content-Security-Policy': { description: 'The page may load only its own scripts, styles and images and call only this origin.', schema: S.string() },
  'X-Frame-Options': { description: 'DENY.', schema: S.string() },
  ETag: { description: 'Version of the file, for If-None-Match.', schema: S.string() },
};

export function dashboardRoutes(deps: DashboardRouteDeps): Route[] {
  const { assets, registrationEnabled } = deps;
  const sequenceExpiryWarningDays = deps.sequenceExpiryWarningDays ?? 30;
  return [
    {
      // /dashboard and /dashboard/ reach the same route (empty segments are ignored); the page's
      // relative URLs need the trailing slash, so the bare form redirects to it.
      method: 'GET', path: '/dashboard', auth: 'none',
      doc: {
        operationId: 'dashboardPage', tags: ['Dashboard'], summary: 'The web dashboard (HTML)',
        description: 'The browser application tenants use to follow documents, configure webhooks and manage API keys. `/dashboard` redirects to `/dashboard/`.',
        responses: {
          '200': { description: 'The page.', contentType: 'text/html', schema: S.string(), headers: PAGE_HEADERS },
          '304': { description: 'Not modified (If-None-Match matched).' },
          '308': { description: 'Redirect from /dashboard to /dashboard/.', headers: { Location: { description: '/dashboard/', schema: S.string() } } },
        },
      },
      handler: async (ctx) => {
        if (!ctx.path.endsWith('/')) {
          return { status: 308, headers: { ...SECURITY_HEADERS, 'cache-control': 'no-store', location: HOME } };
        }
        const page = await assets.get(INDEX);
        return page === null ? notFound(INDEX) : serve(ctx, page, CACHE_CONTROL.html);
      },
    },
    {
      // Registered before /dashboard/{asset}, which would otherwise take the name. Only what a
      // signed-out visitor may know: the page must not offer a form the server will refuse.
      method: 'GET', path: '/dashboard/config.json', auth: 'none',
      doc: {
        operationId: 'dashboardConfig', tags: ['Dashboard'], summary: 'What the dashboard needs to know before sign-in',
        description: 'Public, and holds no secrets: whether public registration (REGISTRATION_ENABLED) is open, so the sign-in page shows or hides "Crear una cuenta"; and SEQUENCE_EXPIRY_WARNING_DAYS, within which the sequences page flags a range about to expire.',
        responses: {
          '200': { description: 'The settings.', schema: envelope(S.object({ registrationEnabled: S.bool(), sequenceExpiryWarningDays: S.int({ minimum: 1 }) })), headers: PAGE_HEADERS },
        },
      },
      handler: async () => ({ ...ok({ registrationEnabled, sequenceExpiryWarningDays }), headers: { ...SECURITY_HEADERS, 'cache-control': 'no-store' } }),
    },
    {
      method: 'GET', path: '/dashboard/{asset}', auth: 'none',
      doc: {
        operationId: 'dashboardAsset', tags: ['Dashboard'], summary: 'A script, stylesheet or image of the dashboard',
        description: 'Scripts are browser JavaScript built ahead of time (src/dashboard/built) from the TypeScript under src/dashboard/client; files are read once and served from memory.',
        responses: {
          '200': { description: 'The file (JavaScript, CSS or SVG).', contentType: 'text/javascript', schema: S.string(), headers: PAGE_HEADERS },
          '304': { description: 'Not modified (If-None-Match matched).' },
          '404': { description: 'NOT_FOUND: no such file.', schema: S.ref('ErrorEnvelope') },
        },
      },
      handler: async (ctx) => {
        const name = ctx.params.asset ?? '';
        const asset = name === INDEX ? null : await assets.get(name);
        return asset === null ? notFound(name) : serve(ctx, asset, CACHE_CONTROL.asset);
      },
    },
  ];
}
