// Built from src/dashboard/client/page-deliveries.ts by `npm run build:dashboard`: edit that file, not this one.
import { CursorTrail, hashOf, PATHS } from "./context.js";
import { deliveryBadge, eventLabel, subjectLabel } from "./delivery-view.js";
import { field, h, orDash, select, table, time } from "./dom.js";
import { deliveryError } from "./errors.js";
import { DELIVERY_FILTERS, EVENTS, PAGE_SIZES } from "./labels.js";
import { listView } from "./list-view.js";
const FILTERS = ['status', 'event', 'pageSize'];
const trail = new CursorTrail();
export let lastDeliveriesHash = `#${PATHS.deliveries}`;
function filterForm(ctx) {
    const q = ctx.query;
    const status = select('status', [['', 'Todas'], ...Object.entries(DELIVERY_FILTERS)], q.get('status') ?? '');
    const event = select('event', [['', 'Todos'], ...Object.entries(EVENTS)], q.get('event') ?? '');
    const pageSize = select('pageSize', PAGE_SIZES.map((n) => [String(n), String(n)]), q.get('pageSize') ?? '25');
    const form = h('form', { class: 'filters', 'aria-label': 'Filtros de entregas' }, field('Estado', status), field('Evento', event), field('Por página', pageSize), h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filtrar'), h('button', { type: 'button', class: 'secondary', onclick: () => ctx.navigate(`#${PATHS.deliveries}`) }, 'Limpiar')));
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const data = new FormData(form);
        ctx.navigate(hashOf(PATHS.deliveries, Object.fromEntries(FILTERS.map((k) => [k, String(data.get(k) ?? '')]))));
    });
    return form;
}
function entry(d) {
    const subject = subjectLabel(d);
    return h('div', { class: 'entry', 'data-entry': d.id }, h('a', { href: `#${PATHS.deliveries}/${d.id}`, 'data-focus-key': d.id }, subject ?? eventLabel(d.event)), subject === null ? null : h('small', { class: 'hint' }, eventLabel(d.event)));
}
function lastAnswer(d) {
    return d.lastError === null ? orDash(d.lastStatusCode) : deliveryError(d.lastError);
}
function deliveriesTable(items) {
    return table(['Entrega', 'Estado', 'Intentos', 'Última respuesta', 'Creada', 'Próximo intento'], items.map((d) => [
        entry(d),
        deliveryBadge(d),
        String(d.attemptCount),
        lastAnswer(d),
        time(d.createdAt),
        time(d.nextAttemptAt),
    ]), { 'data-list': 'deliveries', 'data-titled': '' });
}
export async function deliveriesPage(ctx) {
    const query = new URLSearchParams();
    for (const k of FILTERS) {
        const v = ctx.query.get(k);
        if (v !== null && v !== '')
            query.set(k, v);
    }
    if (!query.has('pageSize'))
        query.set('pageSize', '25');
    lastDeliveriesHash = hashOf(PATHS.deliveries, Object.fromEntries(ctx.query));
    trail.use(query.toString());
    ctx.root.append(h('p', { class: 'lead' }, 'Los webhooks enviados a su receptor y lo que respondió. ', h('a', { href: `#${PATHS.webhooks}` }, 'Configurar webhooks')), filterForm(ctx), listView({
        ctx, trail,
        pagerLabel: 'Páginas de entregas',
        emptyText: 'No hay entregas con estos filtros.',
        fetchPage: (cursor, signal) => {
            const q = new URLSearchParams(query);
            if (cursor !== null)
                q.set('cursor', cursor);
            return ctx.api.get(`/api/webhooks/deliveries?${q.toString()}`, signal);
        },
        render: deliveriesTable,
        changing: (items) => items.some((d) => d.status === 'pending' && d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) - Date.now() < 60_000),
    }));
}
