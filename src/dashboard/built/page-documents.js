// Built from src/dashboard/client/page-documents.ts by `npm run build:dashboard`: edit that file, not this one.
import { CursorTrail, hashOf, PATHS } from "./context.js";
import { badge, busy, dgiiDate, field, filterDate, h, money, orDash, select, table, time } from "./dom.js";
import { saveAs } from "./download.js";
import { ENVIRONMENT_PURPOSES, ESTADOS, PAGE_SIZES, PRINT_FORMATS, TIPOS } from "./labels.js";
import { listView } from "./list-view.js";
const SEARCH = ['encf', 'rncComprador', 'referencia'];
const FILTERS = [...SEARCH, 'estado', 'tipo', 'desde', 'hasta', 'pageSize'];
const EXPORT_FILTERS = FILTERS.filter((k) => k !== 'pageSize');
const trail = new CursorTrail();
export let lastListHash = `#${PATHS.documents}`;
export function estadoBadge(estado) {
    const e = ESTADOS[estado];
    return badge(e?.label ?? estado, e?.tone ?? 'neutral', estado);
}
export function tipoLabel(tipo) {
    const name = TIPOS[tipo];
    return name === undefined ? String(tipo) : `${tipo} · ${name}`;
}
function filterForm(ctx) {
    const q = ctx.query;
    const estado = select('estado', [['', 'Todos'], ...Object.entries(ESTADOS).map(([k, v]) => [k, v.label])], q.get('estado') ?? '');
    const tipo = select('tipo', [['', 'Todos'], ...Object.keys(TIPOS).map((k) => [k, tipoLabel(Number(k))])], q.get('tipo') ?? '');
    const desde = filterDate('desde', q.get('desde') ?? '');
    const hasta = filterDate('hasta', q.get('hasta') ?? '');
    const encf = h('input', { type: 'search', name: 'encf', value: q.get('encf') ?? '', pattern: 'E[0-9]{12}', placeholder: 'E310000000001', autocomplete: 'off', spellcheck: false });
    const rncComprador = h('input', { type: 'search', name: 'rncComprador', value: q.get('rncComprador') ?? '', pattern: '[0-9]{9}|[0-9]{11}', inputmode: 'numeric', autocomplete: 'off' });
    const referencia = h('input', { type: 'search', name: 'referencia', value: q.get('referencia') ?? '', maxlength: 100, autocomplete: 'off', spellcheck: false });
    const pageSize = select('pageSize', PAGE_SIZES.map((n) => [String(n), String(n)]), q.get('pageSize') ?? '25');
    const form = h('form', { class: 'filters', 'aria-label': 'Filtros de documentos' }, field('eNCF', encf), field('Referencia (ERP)', referencia), field('RNC o cédula del comprador', rncComprador), field('Estado', estado), field('Tipo', tipo), field('Emitidos desde', desde), field('Emitidos hasta', hasta), field('Por página', pageSize), h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filtrar'), h('button', { type: 'button', class: 'secondary', onclick: () => ctx.navigate(`#${PATHS.documents}`) }, 'Limpiar')));
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const data = new FormData(form);
        ctx.navigate(hashOf(PATHS.documents, Object.fromEntries(FILTERS.map((k) => [k, String(data.get(k) ?? '').trim()]))));
    });
    return form;
}
function exportButtons(ctx) {
    const status = h('div', { 'aria-live': 'polite' });
    const q = new URLSearchParams();
    for (const k of EXPORT_FILTERS) {
        const v = ctx.query.get(k);
        if (v !== null && v !== '')
            q.set(k, v);
    }
    const button = (format, label) => {
        const b = h('button', { type: 'button', class: 'secondary', 'data-action': `export-${format}` }, label);
        q.set('format', format);
        const path = `/${ctx.env}/documentos-ecf/export?${q.toString()}`;
        const filename = `documentos-${ctx.env}-${new Date().toISOString().slice(0, 10)}.${format}`;
        b.addEventListener('click', () => void busy(b, () => saveAs(ctx, path, filename, format === 'csv' ? 'text/csv' : 'application/zip', status)));
        return b;
    };
    return h('div', { class: 'export' }, h('div', { class: 'actions' }, button('csv', 'Exportar CSV'), button('zip', 'Descargar XML firmados (ZIP)')), status);
}
let pdfFormat = 'carta';
function pdfFormatField() {
    const choice = select('formato', PRINT_FORMATS.map((f) => [f.value, f.label]), pdfFormat);
    choice.addEventListener('change', () => { pdfFormat = choice.value; });
    return h('div', { class: 'filters pdf-format' }, field('Formato del PDF', choice, 'El formato de los botones PDF de la lista.'));
}
function buyer(d) {
    if (d.razonSocialComprador === null)
        return orDash(d.rncComprador);
    return h('span', { 'data-field': 'comprador' }, d.razonSocialComprador, d.rncComprador === null ? null : h('small', { class: 'hint mono' }, ` ${d.rncComprador}`));
}
function pdfButton(ctx, d, status) {
    if (d.securityCode === null)
        return '—';
    const b = h('button', { type: 'button', class: 'secondary small', 'data-action': 'pdf', 'data-focus-key': `pdf-${d.internalTrackId}`, 'aria-label': `PDF de ${d.encf}` }, 'PDF');
    b.addEventListener('click', () => void busy(b, () => saveAs(ctx, `/${ctx.env}/documentos-ecf/${d.internalTrackId}/pdf?formato=${pdfFormat}`, `${d.rncEmisor}${d.encf}.pdf`, 'application/pdf', status)));
    return b;
}
function documentsTable(ctx, items, status) {
    return table(['eNCF', 'Referencia', 'Comprador', 'Tipo', 'Estado', 'Emisión', 'Monto total', 'Actualizado', 'PDF'], items.map((d) => [
        h('a', { href: `#/documentos/${d.internalTrackId}`, class: 'mono', 'data-focus-key': d.internalTrackId }, d.encf),
        h('span', { class: 'break', 'data-field': 'referencia' }, orDash(d.referencia)),
        buyer(d),
        tipoLabel(d.tipo),
        estadoBadge(d.estado),
        dgiiDate(d.fechaEmision),
        money(d.montoTotal),
        time(d.updatedAt),
        pdfButton(ctx, d, status),
    ]), { 'data-list': 'documents', 'data-titled': '' });
}
async function firstSteps(ctx) {
    const [certificates, ranges] = await Promise.all([
        ctx.api.get('/api/certificates', ctx.signal),
        ctx.api.get(`/${ctx.env}/secuencias`, ctx.signal),
    ]);
    const now = Date.now();
    const certified = certificates.some((c) => c.active && new Date(c.validTo).getTime() > now);
    const ranged = ranges.some((r) => r.estado === 'activa');
    const step = (done, title, text, key) => h('li', { 'data-step': key, 'data-done': String(done) }, badge(done ? 'Hecho' : 'Pendiente', done ? 'ok' : 'warn', done ? 'done' : 'pending'), ' ', h('strong', null, title), h('p', { class: 'hint' }, text));
    return h('section', { class: 'card', 'aria-labelledby': 'first-steps', 'data-section': 'first-steps' }, h('h2', { id: 'first-steps' }, 'Primeros pasos'), h('ol', { class: 'steps' }, step(certified, '1. Suba su certificado de firma', certified ? 'Su certificado está vigente: la DGII recibirá sus documentos firmados.' : ['Sin él, los documentos quedan en error hasta que lo suba y los reenvíe. ', h('a', { href: `#${PATHS.certificate}` }, 'Subir el certificado (.p12)')], 'certificate'), step(ranged, '2. Registre su secuencia autorizada', ranged
        ? 'Tiene un rango de eNCF activo en este ambiente.'
        : [ctx.env === 'eCF' ? 'En producción no se puede emitir sin un rango autorizado por la DGII. ' : 'Copie el rango y su vencimiento de la Oficina Virtual de la DGII (en pruebas, sin rango se numera desde 1). ', h('a', { href: `#${PATHS.sequences}` }, 'Registrar una secuencia')], 'range'), step(false, '3. Emita su primer documento', ['Desde su ERP con una clave API (cabecera X-API-KEY, POST /', ctx.env, '/documentos-ecf). ', h('a', { href: `#${PATHS.keys}` }, 'Crear una clave API')], 'document')));
}
export async function documentsPage(ctx) {
    const query = new URLSearchParams();
    for (const k of FILTERS) {
        const v = ctx.query.get(k);
        if (v !== null && v !== '')
            query.set(k, v);
    }
    if (!query.has('pageSize'))
        query.set('pageSize', '25');
    lastListHash = hashOf(PATHS.documents, Object.fromEntries(ctx.query));
    trail.use(`${ctx.env}?${query.toString()}`);
    const pdfStatus = h('div', { 'aria-live': 'polite' });
    const steps = h('div');
    const unfiltered = [...query.keys()].every((k) => k === 'pageSize');
    let stepsShown = false;
    ctx.root.append(steps, h('p', { class: 'lead' }, 'Ambiente ', h('strong', null, ctx.env), ` (${ENVIRONMENT_PURPOSES[ctx.env]}). Los documentos en proceso se actualizan solos.`), filterForm(ctx), exportButtons(ctx), pdfFormatField(), pdfStatus, listView({
        ctx, trail,
        pagerLabel: 'Páginas de documentos',
        emptyText: 'No hay documentos con estos filtros en este ambiente. Si todavía no emitió ninguno, siga los primeros pasos de arriba.',
        fetchPage: (cursor, signal) => {
            const q = new URLSearchParams(query);
            if (cursor !== null)
                q.set('cursor', cursor);
            return ctx.api.get(`/${ctx.env}/documentos-ecf?${q.toString()}`, signal).then((page) => {
                if (page.items.length > 0)
                    steps.replaceChildren();
                else if (cursor === null && unfiltered && !stepsShown) {
                    stepsShown = true;
                    void firstSteps(ctx).then((s) => steps.replaceChildren(s), () => undefined);
                }
                return page;
            });
        },
        render: (items) => documentsTable(ctx, items, pdfStatus),
        changing: (items) => items.some((d) => ESTADOS[d.estado]?.final === false),
    }));
}
