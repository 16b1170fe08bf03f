// Built from src/dashboard/client/page-received.ts by `npm run build:dashboard`: edit that file, not this one.
import { CursorTrail, hashOf, PATHS } from "./context.js";
import { badge, busy, dgiiDate, facts, field, filterDate, h, loading, money, orDash, errorBox, table, time } from "./dom.js";
import { saveAs } from "./download.js";
import { buyerSection, linesSection, totalsSection } from "./ecf-view.js";
import { PAGE_SIZES } from "./labels.js";
import { listView } from "./list-view.js";
import { approvalControls } from "./received-approval.js";
import { receiverSettingsSection } from "./received-settings.js";
import { tipoLabel } from "./page-documents.js";
import { select } from "./dom.js";
const FILTERS = ['encf', 'rncEmisor', 'desde', 'hasta', 'pageSize'];
const trail = new CursorTrail();
let lastHash = `#${PATHS.received}`;
export function signerMark(trusted) {
    return trusted ? null : badge('Firmante no verificado', 'warn', 'untrusted');
}
const VERIFICATION = {
    pendiente: { label: 'Consultando a DGII', tone: 'neutral' },
    en_proceso: { label: 'En proceso en DGII', tone: 'neutral' },
    aceptado: { label: 'Aceptado por DGII', tone: 'ok' },
    aceptado_condicional: { label: 'Aceptado condicional por DGII', tone: 'ok' },
    rechazado: { label: 'Rechazado por DGII', tone: 'bad' },
    no_encontrado: { label: 'DGII no lo conoce', tone: 'bad' },
    no_disponible: { label: 'Sin consulta a DGII', tone: 'neutral' },
    error: { label: 'No se pudo consultar a DGII', tone: 'warn' },
};
export function verificationMark(v) {
    if (v === null)
        return '—';
    const shown = VERIFICATION[v.estado] ?? { label: v.estado, tone: 'neutral' };
    return badge(shown.label, shown.tone, v.estado);
}
function filterForm(ctx) {
    const q = ctx.query;
    const encf = h('input', { type: 'search', name: 'encf', value: q.get('encf') ?? '', pattern: 'E[0-9]{12}', autocomplete: 'off' });
    const rnc = h('input', { type: 'search', name: 'rncEmisor', value: q.get('rncEmisor') ?? '', pattern: '[0-9]{9}|[0-9]{11}', inputmode: 'numeric', autocomplete: 'off' });
    const desde = filterDate('desde', q.get('desde') ?? '');
    const hasta = filterDate('hasta', q.get('hasta') ?? '');
    const pageSize = select('pageSize', PAGE_SIZES.map((n) => [String(n), String(n)]), q.get('pageSize') ?? '25');
    const form = h('form', { class: 'filters', 'aria-label': 'Filtros de documentos recibidos' }, field('eNCF', encf), field('RNC del emisor', rnc), field('Emitidos desde', desde), field('Emitidos hasta', hasta), field('Por página', pageSize), h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filtrar'), h('button', { type: 'button', class: 'secondary', onclick: () => ctx.navigate(`#${PATHS.received}`) }, 'Limpiar')));
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const data = new FormData(form);
        ctx.navigate(hashOf(PATHS.received, Object.fromEntries(FILTERS.map((k) => [k, String(data.get(k) ?? '').trim()]))));
    });
    return form;
}
export async function receivedListPage(ctx) {
    const query = new URLSearchParams();
    for (const k of FILTERS) {
        const v = ctx.query.get(k);
        if (v !== null && v !== '')
            query.set(k, v);
    }
    if (!query.has('pageSize'))
        query.set('pageSize', '25');
    lastHash = hashOf(PATHS.received, Object.fromEntries(ctx.query));
    trail.use(`${ctx.env}?${query.toString()}`);
    ctx.root.append(h('p', { class: 'lead' }, 'Comprobantes que otros contribuyentes le enviaron en el ambiente ', h('strong', null, ctx.env), '.'), filterForm(ctx), listView({
        ctx, trail,
        pagerLabel: 'Páginas de documentos recibidos',
        emptyText: 'No hay documentos recibidos con estos filtros en este ambiente.',
        fetchPage: (cursor, signal) => {
            const q = new URLSearchParams(query);
            if (cursor !== null)
                q.set('cursor', cursor);
            return ctx.api.get(`/${ctx.env}/documentos-recibidos?${q.toString()}`, signal);
        },
        render: (items) => table(['eNCF', 'Emisor', 'Tipo', 'Emisión', 'Monto total', 'DGII', 'Recibido'], items.map((d) => [
            h('span', null, h('a', { href: `#${PATHS.received}/${d.id}`, class: 'mono', 'data-focus-key': d.id }, d.encf), ' ', signerMark(d.signerTrusted)),
            h('span', null, d.razonSocialEmisor, h('br'), h('span', { class: 'hint mono' }, d.rncEmisor)),
            tipoLabel(d.tipo),
            dgiiDate(d.fechaEmision),
            money(d.montoTotal),
            verificationMark(d.verificacionDgii),
            time(d.receivedAt),
        ]), { 'data-list': 'received', 'data-titled': '' }),
        changing: () => false,
    }), receiverSettingsSection(ctx));
}
function actions(ctx, d, approval) {
    const status = h('div', { 'aria-live': 'polite' });
    const base = `/${ctx.env}/documentos-recibidos/${d.id}`;
    const file = (action, label, path, filename, type) => {
        const b = h('button', { type: 'button', class: 'secondary', 'data-action': action }, label);
        b.addEventListener('click', () => void busy(b, () => saveAs(ctx, path, filename, type, status)));
        return b;
    };
    return h('div', null, h('div', { class: 'actions', 'data-actions': 'received' }, file('xml', 'Descargar XML', `${base}/xml`, `${d.rncEmisor}${d.encf}.xml`, 'application/xml'), file('arecf', 'Descargar ARECF', `${base}/arecf`, `ARECF-${d.rncEmisor}${d.encf}.xml`, 'application/xml'), file('pdf', 'Descargar PDF', `${base}/pdf`, `${d.rncEmisor}${d.encf}.pdf`, 'application/pdf'), d.aprobacionComercial === null ? null : file('acecf', 'Descargar ACECF', `${base}/acecf`, `ACECF-${d.rncEmisor}${d.encf}.xml`, 'application/xml'), ...approval), status);
}
export async function receivedDocumentPage(ctx) {
    const id = ctx.params.id ?? '';
    const body = h('div', { class: 'stack' }, loading());
    ctx.root.append(h('p', null, h('a', { href: lastHash }, '← Volver a recibidos')), body);
    try {
        const d = await ctx.api.get(`/${ctx.env}/documentos-recibidos/${encodeURIComponent(id)}`, ctx.signal);
        ctx.heading.textContent = `Recibido ${d.encf}`;
        const approval = approvalControls(ctx, d);
        body.replaceChildren(h('section', { class: 'card', 'aria-labelledby': 'rd-summary' }, h('h2', { id: 'rd-summary' }, 'Resumen'), d.signerTrusted ? null : h('div', { class: 'alert alert-warn', 'data-field': 'untrusted' }, h('p', null, h('strong', null, 'Firmante no verificado. '), 'El certificado que firmó este documento no está en la lista de firmantes de confianza: confirme con el emisor antes de registrarlo.')), d.verificacionDgii?.estado === 'no_encontrado' || d.verificacionDgii?.estado === 'rechazado'
            ? h('div', { class: 'alert alert-warn', 'data-field': 'dgii-unverified' }, h('p', null, h('strong', null, d.verificacionDgii.estado === 'rechazado' ? 'DGII rechazó este e-CF. ' : 'DGII no conoce este e-CF. '), 'No tiene validez fiscal tal como se recibió: no lo registre sin confirmarlo con el emisor.'))
            : null, facts([
            ['Emisor', d.razonSocialEmisor],
            ['RNC emisor', h('span', { class: 'mono' }, d.rncEmisor)],
            ['Tipo', tipoLabel(d.tipo)],
            ['Fecha de emisión', dgiiDate(d.fechaEmision)],
            ['Monto total', money(d.montoTotal)],
            ['Código de seguridad', h('span', { class: 'mono' }, orDash(d.codigoSeguridad))],
            ['Firmante', h('span', { class: 'break' }, orDash(d.signerSubject))],
            ['Recibido', time(d.receivedAt)],
            ['Verificación DGII', h('span', { 'data-field': 'verificacion-dgii' }, verificationMark(d.verificacionDgii), d.verificacionDgii?.consultadoEn ? h('span', { class: 'hint' }, ' · ', time(d.verificacionDgii.consultadoEn)) : null)],
        ]), actions(ctx, d, approval.buttons)), approval.section, buyerSection(d.document.ECF), linesSection(d.document.ECF), totalsSection(d.document.ECF));
    }
    catch (err) {
        if (!ctx.signal.aborted)
            body.replaceChildren(errorBox(err));
    }
}
