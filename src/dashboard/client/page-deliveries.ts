import { CursorTrail, hashOf, PATHS, type PageContext } from './context.ts';
import { deliveryBadge, eventLabel, subjectLabel } from './delivery-view.ts';
import { field, h, orDash, select, table, time } from './dom.ts';
import { deliveryError } from './errors.ts';
import { DELIVERY_FILTERS, EVENTS, PAGE_SIZES } from './labels.ts';
import { listView } from './list-view.ts';
import type { Delivery, Page } from './types.ts';

// Every webhook delivery, newest first; "Fallidas" are the abandoned ones and the pending
// ones whose last attempt failed.

const FILTERS = ['status', 'event', 'pageSize'] as const;
const trail = new CursorTrail();
export let lastDeliveriesHash = `#${PATHS.deliveries}`;

function filterForm(ctx: PageContext): HTMLElement {
  const q = ctx.query;
  const status = select('status', [['', 'Todas'], ...Object.entries(DELIVERY_FILTERS)], q.get('status') ?? '');
  const event = select('event', [['', 'Todos'], ...Object.entries(EVENTS)], q.get('event') ?? '');
  const pageSize = select('pageSize', PAGE_SIZES.map((n) => [String(n), String(n)] as const), q.get('pageSize') ?? '25');
  const form = h('form', { class: 'filters', 'aria-label': 'Filtros de entregas' },
    field('Estado', status), field('Evento', event), field('Por página', pageSize),
    h('div', { class: 'actions' },
      h('button', { type: 'submit' }, 'Filtrar'),
      h('button', { type: 'button', class: 'secondary', onclick: () => ctx.navigate(`#${PATHS.deliveries}`) }, 'Limpiar'),
    ),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    ctx.navigate(hashOf(PATHS.deliveries, Object.fromEntries(FILTERS.map((k) => [k, String(data.get(k) ?? '')]))));
  });
  return form;
}

/** The row's link names what the delivery is about, with the event kind under it; a test is named by its kind. */
function entry(d: Delivery): HTMLElement {
  const subject = subjectLabel(d);
  return h('div', { class: 'entry', 'data-entry': d.id },
    h('a', { href: `#${PATHS.deliveries}/${d.id}`, 'data-focus-key': d.id }, subject ?? eventLabel(d.event)),
    subject === null ? null : h('small', { class: 'hint' }, eventLabel(d.event)));
}

function lastAnswer(d: Delivery): string {
  return d.lastError === null ? orDash(d.lastStatusCode) : deliveryError(d.lastError);
}

function deliveriesTable(items: readonly Delivery[]): HTMLElement {
  return table(['Entrega', 'Estado', 'Intentos', 'Última respuesta', 'Creada', 'Próximo intento'], items.map((d) => [
    entry(d),
    deliveryBadge(d),
    String(d.attemptCount),
    lastAnswer(d),
    time(d.createdAt),
    time(d.nextAttemptAt),
  ]), { 'data-list': 'deliveries', 'data-titled': '' });
}

export async function deliveriesPage(ctx: PageContext): Promise<void> {
  const query = new URLSearchParams();
  for (const k of FILTERS) {
    const v = ctx.query.get(k);
    if (v !== null && v !== '') query.set(k, v);
  }
  if (!query.has('pageSize')) query.set('pageSize', '25');
  lastDeliveriesHash = hashOf(PATHS.deliveries, Object.fromEntries(ctx.query));
  trail.use(query.toString());
  ctx.root.append(
    h('p', { class: 'lead' }, 'Los webhooks enviados a su receptor y lo que respondió. ', h('a', { href: `#${PATHS.webhooks}` }, 'Configurar webhooks')),
    filterForm(ctx),
    listView<Delivery>({
      ctx, trail,
      pagerLabel: 'Páginas de entregas',
      emptyText: 'No hay entregas con estos filtros.',
      fetchPage: (cursor, signal) => {
        const q = new URLSearchParams(query);
        if (cursor !== null) q.set('cursor', cursor);
        return ctx.api.get<Page<Delivery>>(`/api/webhooks/deliveries?${q.toString()}`, signal);
      },
      render: deliveriesTable,
      changing: (items) => items.some((d) => d.status === 'pending' && d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) - Date.now() < 60_000),
    }),
  );
}
