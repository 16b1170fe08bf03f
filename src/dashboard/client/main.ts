import { Api } from './api.ts';
import type { PageContext, PageRenderer } from './context.ts';
import { errorBox, h, select } from './dom.ts';
import { ENVIRONMENT_LABELS, ENVIRONMENTS, type Environment } from './labels.ts';
import { deliveriesPage } from './page-deliveries.ts';
import { deliveryPage } from './page-delivery.ts';
import { documentPage } from './page-document.ts';
import { documentsPage } from './page-documents.ts';
import { keysPage } from './page-keys.ts';
import { leaveSignInMessage, registerPage, signInPage } from './page-sign-in.ts';
import { webhooksPage } from './page-webhooks.ts';
import type { Account } from './types.ts';
import { loadEnvironment, saveEnvironment } from './session.ts';

// The page's frame: hash routes, the header with sections, environment and sign-out, and
// moving the focus to each new page's heading so keyboard and screen-reader users follow.

interface RouteEntry {
  pattern: RegExp;
  /** Names of the pattern's groups, in order. */
  params?: readonly string[];
  title: string;
  render: PageRenderer;
  /** Reachable signed out (and only then). */
  public?: boolean;
  /** The section of the header it belongs to. */
  section?: Section;
}

const SECTIONS = {
  documentos: { label: 'Documentos', hash: '#/documentos' },
  webhooks: { label: 'Webhooks', hash: '#/webhooks' },
  entregas: { label: 'Entregas', hash: '#/entregas' },
  claves: { label: 'Claves API', hash: '#/claves' },
} as const;
type Section = keyof typeof SECTIONS;

const ID = '([0-9A-Fa-f-]{36})';
const ROUTES: readonly RouteEntry[] = [
  { pattern: /^\/ingresar$/, title: 'Ingresar', render: signInPage, public: true },
  { pattern: /^\/registro$/, title: 'Crear cuenta', render: registerPage, public: true },
  { pattern: /^\/documentos$/, title: 'Documentos', render: documentsPage, section: 'documentos' },
  { pattern: new RegExp(`^/documentos/${ID}$`), params: ['id'], title: 'Documento', render: documentPage, section: 'documentos' },
  { pattern: /^\/webhooks$/, title: 'Configuración de webhooks', render: webhooksPage, section: 'webhooks' },
  { pattern: /^\/entregas$/, title: 'Entregas de webhooks', render: deliveriesPage, section: 'entregas' },
  { pattern: new RegExp(`^/entregas/${ID}$`), params: ['id'], title: 'Entrega', render: deliveryPage, section: 'entregas' },
  { pattern: /^\/claves$/, title: 'Claves API', render: keysPage, section: 'claves' },
];

let environment: Environment = loadEnvironment();
const api = new Api(() => environment);
let current: AbortController | null = null;
let account: Promise<Account | null> | null = null;
let firstRender = true;

const main = h('main', { id: 'main', tabindex: '-1' });
const accountName = h('span', { class: 'account' });
const envSelect = select('environment', ENVIRONMENTS.map((e) => [e, ENVIRONMENT_LABELS[e]] as const), environment);
envSelect.id = 'environment';
const navLinks = new Map<Section, HTMLAnchorElement>();
const nav = h('nav', { 'aria-label': 'Secciones' }, h('ul', null, Object.entries(SECTIONS).map(([key, s]) => {
  const a = h('a', { href: s.hash }, s.label);
  navLinks.set(key as Section, a);
  return h('li', null, a);
})));
const signOut = h('button', { type: 'button', class: 'secondary small', 'data-action': 'sign-out' }, 'Salir');
const session = h('div', { class: 'session' },
  h('label', { for: 'environment', class: 'env' }, h('span', null, 'Ambiente'), envSelect),
  accountName,
  signOut,
);
const header = h('header', { class: 'topbar' },
  h('div', { class: 'topbar-inner' }, h('a', { class: 'brand', href: '#/documentos' }, 'Panel e-CF'), nav, session),
);

function parseHash(): { path: string; query: URLSearchParams } {
  const raw = location.hash.replace(/^#/, '');
  const q = raw.indexOf('?');
  return q < 0 ? { path: raw, query: new URLSearchParams() } : { path: raw.slice(0, q), query: new URLSearchParams(raw.slice(q + 1)) };
}

function navigate(hash: string): void {
  if (location.hash === hash) void render();
  else location.hash = hash;
}

function showAccount(): void {
  account ??= api.get<Account>('/api/account').catch(() => null);
  void account.then((a) => {
    accountName.textContent = a === null ? '' : a.tenant.name;
    accountName.title = a === null ? '' : `RNC ${a.tenant.rnc} · ${a.user.email}`;
  });
}

async function render(): Promise<void> {
  const { path, query } = parseHash();
  const found = ROUTES.map((r) => ({ r, m: r.pattern.exec(path) })).find((x) => x.m !== null);
  if (found === undefined || found.m === null) return navigate(api.signedIn ? '#/documentos' : '#/ingresar');
  const { r: route, m } = found;
  if (route.public === true && api.signedIn) return navigate('#/documentos');
  if (route.public !== true && !api.signedIn) return navigate('#/ingresar');

  current?.abort();
  const controller = new AbortController();
  current = controller;
  nav.hidden = !api.signedIn;
  session.hidden = !api.signedIn;
  if (api.signedIn) showAccount();
  for (const [key, link] of navLinks) {
    if (key === route.section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const heading = h('h1', { id: 'page-title', tabindex: '-1' }, route.title);
  const root = h('div', { class: 'page', 'data-page': path.split('/')[1] ?? '' }, heading);
  main.replaceChildren(root);
  document.title = `${route.title} · Panel e-CF`;
  if (!firstRender) heading.focus();
  firstRender = false;

  const params: Record<string, string> = {};
  (route.params ?? []).forEach((name, i) => (params[name] = m[i + 1] ?? ''));
  const ctx: PageContext = { root, heading, params, query, signal: controller.signal, api, env: environment, navigate };
  try {
    await route.render(ctx);
  } catch (err) {
    if (!controller.signal.aborted) root.append(errorBox(err));
  }
}

envSelect.addEventListener('change', () => {
  environment = ENVIRONMENTS.find((e) => e === envSelect.value) ?? environment;
  saveEnvironment(environment);
  void render();
});

signOut.addEventListener('click', () => {
  signOut.disabled = true;
  void api.signOut().finally(() => {
    signOut.disabled = false;
    account = null;
    leaveSignInMessage('Sesión cerrada.', 'ok');
    navigate('#/ingresar');
  });
});

api.onSessionLost = () => {
  account = null;
  leaveSignInMessage('Su sesión terminó. Ingrese de nuevo.', 'warn');
  navigate('#/ingresar');
};

document.body.replaceChildren(header, main);
window.addEventListener('hashchange', () => void render());
void render();
