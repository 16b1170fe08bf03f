import { CursorTrail, hashOf, type PageContext } from './context.ts';
import { field, h, orDash, select, table, time } from './dom.ts';
import { DELIVERY_FILTERS, EVENTS, PAGE_SIZES } from './labels.ts';
import { listView } from './list-view.ts';
import { deliveryBadge } from './page-webhooks.ts';
import type { Delivery, Page } from './types.ts';

// Every webhook delivery, newest first; "Fallidas" are the abandoned ones and the pending
// ones whose last attempt failed.

const FILTERS = ['status', 'event', 'pageSize'] as const;
const trail = new CursorTrail();
export let lastDeliveriesHash = '#/entregas';

export function eventLabel(event: string): string {
  return (EVENTS as Record<string, string | undefined>)[event] ?? event;
}

function filterForm(ctx: PageContext): HTMLElement {
  const q = ctx.query;
  const status = select('status', [['', 'Todas'], ...Object.entries(DELIVERY_FILTERS)], q.get('status') ?? '');
  const event = select('event', [['', 'Todos'], ...Object.entries(EVENTS)], q.get('event') ?? '');
  const pageSize = select('pageSize', PAGE_SIZES.map((n) => [String(n), String(n)] as const), q.get('pageSize') ?? '25');
  const form = h('form', { class: 'filters', 'aria-label': 'Filtros de entregas' },
    field('Estado', status), field('Evento', event), field('Por página', pageSize),
    h('div', { class: 'actions' },
      h('button', { type: 'submit' }, 'Filtrar'),
      h('button', { type: 'button', class: 'secondary', onclick: () => ctx.navigate('#/entregas') }, 'Limpiar'),
    ),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    ctx.navigate(hashOf('/entregas', Object.fromEntries(FILTERS.map((k) => [k, String(data.get(k) ?? '')]))));
  });
  return form;
}

function deliveriesTable(items: readonly Delivery[]): HTMLElement {
  return table(['Creada', 'Evento', 'Estado', 'Intentos', 'Última respuesta', 'Próximo intento'], items.map((d) => [
    h('a', { href: `#/entregas/${d.id}`, 'data-focus-key': d.id }, time(d.createdAt)),
    eventLabel(d.event),
    deliveryBadge(d.status),
    String(d.attemptCount),
    d.lastError === null ? orDash(d.lastStatusCode) : `${orDash(d.lastStatusCode)} · ${d.lastError}`,
    time(d.nextAttemptAt),
  ]), { 'data-list': 'deliveries' });
}

export async function deliveriesPage(ctx: PageContext): Promise<void> {
  const query = new URLSearchParams();
  for (const k of FILTERS) {
    const v = ctx.query.get(k);
    if (v !== null && v !== '') query.set(k, v);
  }
  if (!query.has('pageSize')) query.set('pageSize', '25');
  lastDeliveriesHash = hashOf('/entregas', Object.fromEntries(ctx.query));
  trail.use(query.toString());
  ctx.root.append(
    h('p', { class: 'lead' }, 'Los webhooks enviados a su receptor y lo que respondió. ', h('a', { href: '#/webhooks' }, 'Configurar webhooks')),
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
