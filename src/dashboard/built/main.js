// Built from src/dashboard/client/main.ts by `npm run build:dashboard`: edit that file, not this one.
import { Api } from "./api.js";
import { PATHS } from "./context.js";
import { errorBox, h, select } from "./dom.js";
import { ENVIRONMENT_PURPOSES, ENVIRONMENTS } from "./labels.js";
import { certificatePage } from "./page-certificate.js";
import { certificationPage } from "./page-certification.js";
import { deliveriesPage } from "./page-deliveries.js";
import { deliveryPage } from "./page-delivery.js";
import { documentPage } from "./page-document.js";
import { documentsPage, lastListHash } from "./page-documents.js";
import { invoicePage } from "./page-invoice.js";
import { keysPage } from "./page-keys.js";
import { overviewPage } from "./page-overview.js";
import { printingPage } from "./page-printing.js";
import { receivedDocumentPage, receivedListPage } from "./page-received.js";
import { savedPage } from "./page-saved.js";
import { sequencesPage } from "./page-sequences.js";
import { leaveSignInMessage, registerPage, signInPage } from "./page-sign-in.js";
import { webhooksPage } from "./page-webhooks.js";
import { loadEnvironment, saveEnvironment } from "./session.js";
const SECTIONS = {
    resumen: { label: 'Resumen', path: PATHS.overview },
    documentos: { label: 'Documentos', path: PATHS.documents },
    recibidos: { label: 'Recibidos', path: PATHS.received },
    secuencias: { label: 'Secuencias', path: PATHS.sequences },
    certificacion: { label: 'Certificación', path: PATHS.certification },
    configuracion: { label: 'Configuración', path: PATHS.settings },
    factura: { label: 'Nueva factura', path: PATHS.newInvoice },
};
const BY_ENVIRONMENT = new Set(['resumen', 'documentos', 'recibidos', 'secuencias', 'certificacion', 'factura']);
const TABS = {
    webhooks: { label: 'Webhooks', path: PATHS.webhooks },
    entregas: { label: 'Entregas', path: PATHS.deliveries },
    certificado: { label: 'Certificado', path: PATHS.certificate },
    claves: { label: 'Claves API', path: PATHS.keys },
    impresion: { label: 'Impresión y correo', path: PATHS.printing },
};
const ID = '([0-9A-Fa-f-]{36})';
const ROUTES = [
    { pattern: /^\/ingresar$/, title: 'Ingresar', render: signInPage, public: true },
    { pattern: /^\/registro$/, title: 'Crear cuenta', render: registerPage, public: true },
    { pattern: /^\/documentos$/, title: 'Documentos', render: documentsPage, section: 'documentos' },
    { pattern: new RegExp(`^/documentos/${ID}$`), params: ['id'], title: 'Documento', render: documentPage, section: 'documentos' },
    { pattern: /^\/resumen$/, title: 'Resumen', render: overviewPage, section: 'resumen' },
    { pattern: /^\/recibidos$/, title: 'Documentos recibidos', render: receivedListPage, section: 'recibidos' },
    { pattern: new RegExp(`^/recibidos/${ID}$`), params: ['id'], title: 'Documento recibido', render: receivedDocumentPage, section: 'recibidos' },
    { pattern: /^\/secuencias$/, title: 'Secuencias', render: sequencesPage, section: 'secuencias' },
    { pattern: /^\/certificacion$/, title: 'Certificación', render: certificationPage, section: 'certificacion' },
    { pattern: /^\/configuracion\/webhooks$/, title: 'Webhooks', render: webhooksPage, section: 'configuracion', tab: 'webhooks' },
    { pattern: /^\/configuracion\/entregas$/, title: 'Entregas de webhooks', render: deliveriesPage, section: 'configuracion', tab: 'entregas' },
    { pattern: new RegExp(`^/configuracion/entregas/${ID}$`), params: ['id'], title: 'Entrega', render: deliveryPage, section: 'configuracion', tab: 'entregas' },
    { pattern: /^\/configuracion\/certificado$/, title: 'Certificado de firma', render: certificatePage, section: 'configuracion', tab: 'certificado' },
    { pattern: /^\/configuracion\/claves$/, title: 'Claves API', render: keysPage, section: 'configuracion', tab: 'claves' },
    { pattern: /^\/configuracion\/impresion$/, title: 'Impresión y correo', render: printingPage, section: 'configuracion', tab: 'impresion' },
    { pattern: /^\/nueva-factura$/, title: 'Nueva factura', render: invoicePage, section: 'factura' },
    { pattern: /^\/guardados$/, title: 'Clientes y artículos guardados', render: savedPage, section: 'factura' },
];
const MOVED = [
    [/^\/(webhooks|entregas|claves)(?=[/?]|$)/, `${PATHS.settings}/$1`],
    [/^\/configuracion(?=[?]|$)/, PATHS.webhooks],
];
let environment = loadEnvironment();
const api = new Api(() => environment);
let current = null;
let account = null;
let firstRender = true;
const main = h('main', { id: 'main', tabindex: '-1' });
const accountName = h('span', { class: 'account' });
const envSelect = select('environment', ENVIRONMENTS.map((e) => [e, e]), environment);
envSelect.id = 'environment';
for (const option of Array.from(envSelect.options))
    option.title = ENVIRONMENT_PURPOSES[option.value];
const envControl = h('label', { for: 'environment', class: 'env' }, h('span', { class: 'env-label' }, 'Ambiente'), envSelect);
const navLinks = new Map();
const nav = h('nav', { 'aria-label': 'Secciones' }, h('ul', null, Object.entries(SECTIONS).map(([key, s]) => {
    const a = h('a', { href: `#${s.path}` }, s.label);
    navLinks.set(key, a);
    return h('li', null, a);
})));
const signOut = h('button', { type: 'button', class: 'secondary small', 'data-action': 'sign-out' }, 'Salir');
const header = h('header', { class: 'topbar' }, h('div', { class: 'topbar-inner' }, h('a', { class: 'brand', href: `#${PATHS.documents}` }, 'Panel e-CF'), nav, envControl, accountName, signOut));
function parseHash() {
    const raw = location.hash.replace(/^#/, '');
    const q = raw.indexOf('?');
    return q < 0 ? { path: raw, query: new URLSearchParams() } : { path: raw.slice(0, q), query: new URLSearchParams(raw.slice(q + 1)) };
}
function navigate(hash) {
    if (location.hash === hash)
        void render();
    else
        location.hash = hash;
}
function showAccount() {
    account ??= api.get('/api/account').catch(() => null);
    void account.then((a) => {
        accountName.textContent = a === null ? '' : a.tenant.name;
        accountName.title = a === null ? '' : `RNC ${a.tenant.rnc} · ${a.user.email}`;
    });
}
function tabs(currentTab) {
    return h('nav', { class: 'tabs', 'aria-label': 'Configuración' }, h('ul', null, Object.entries(TABS).map(([key, t]) => h('li', null, h('a', { href: `#${t.path}`, 'aria-current': key === currentTab ? 'page' : null }, t.label)))));
}
async function render() {
    const raw = location.hash.replace(/^#/, '');
    const moved = MOVED.find(([from]) => from.test(raw));
    if (moved !== undefined)
        return location.replace(`#${raw.replace(moved[0], moved[1])}`);
    const { path, query } = parseHash();
    const found = ROUTES.map((r) => ({ r, m: r.pattern.exec(path) })).find((x) => x.m !== null);
    if (found === undefined || found.m === null)
        return navigate(api.signedIn ? `#${PATHS.documents}` : '#/ingresar');
    const { r: route, m } = found;
    if (route.public === true && api.signedIn)
        return navigate(`#${PATHS.documents}`);
    if (route.public !== true && !api.signedIn)
        return navigate('#/ingresar');
    current?.abort();
    const controller = new AbortController();
    current = controller;
    for (const el of [nav, accountName, signOut])
        el.hidden = !api.signedIn;
    envControl.hidden = !api.signedIn || route.section === undefined || !BY_ENVIRONMENT.has(route.section);
    if (api.signedIn)
        showAccount();
    for (const [key, link] of navLinks) {
        if (key === route.section)
            link.setAttribute('aria-current', 'true');
        else
            link.removeAttribute('aria-current');
    }
    const heading = h('h1', { id: 'page-title', tabindex: '-1' }, route.title);
    const root = h('div', { class: 'page', 'data-page': route.tab ?? route.section ?? path.slice(1) }, route.tab === undefined ? null : tabs(route.tab), heading);
    main.replaceChildren(root);
    document.title = route.tab === undefined ? `${route.title} · Panel e-CF` : `${route.title} · Configuración · Panel e-CF`;
    if (!firstRender)
        heading.focus();
    firstRender = false;
    const params = {};
    (route.params ?? []).forEach((name, i) => (params[name] = m[i + 1] ?? ''));
    const ctx = { root, heading, params, query, signal: controller.signal, api, env: environment, navigate };
    try {
        await route.render(ctx);
    }
    catch (err) {
        if (!controller.signal.aborted)
            root.append(errorBox(err));
    }
}
envSelect.addEventListener('change', () => {
    environment = ENVIRONMENTS.find((e) => e === envSelect.value) ?? environment;
    saveEnvironment(environment);
    if (parseHash().path.startsWith(`${PATHS.documents}/`))
        navigate(lastListHash);
    else if (parseHash().path.startsWith(`${PATHS.received}/`))
        navigate(`#${PATHS.received}`);
    else
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
void api.publicConfig();
document.body.replaceChildren(header, main);
window.addEventListener('hashchange', () => void render());
void render();
