import { CursorTrail, hashOf, PATHS, type PageContext } from './context.ts';
import { deliveryBadge, eventLabel, subjectOf } from './delivery-view.ts';
import { field, h, orDash, select, table, time } from './dom.ts';
import { deliveryError } from './errors.ts';
import { DELIVERY_FILTERS, EVENTS, PAGE_SIZES } from './labels.ts';
import { listView } from './list-view.ts';
import type { Delivery, DeliveryDetail, Page } from './types.ts';

// Every webhook delivery, newest first; "Fallidas" are the abandoned ones and the pending
// ones whose last attempt failed.

const FILTERS = ['status', 'event', 'pageSize'] as const;
const trail = new CursorTrail();
export let lastDeliveriesHash = `#${PATHS.deliveries}`;

// The list does not carry the body of each delivery, which is what says which document it
// is about, so the page reads it from the delivery itself: once per delivery (a body never
// changes), for the first rows of a page only, a few at a time, to stay far from the
// per-tenant rate limit.
const subjects = new Map<string, string | null>();
const SUBJECT_READS_PER_PAGE = 25;
const SUBJECT_READS_AT_ONCE = 3;

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

/** The row's link names what the delivery is about; the event kind goes under it once that is known. */
function entry(d: Delivery): HTMLElement {
  const subject = subjects.get(d.id) ?? null;
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

/** Reads the bodies of the rows not named yet and names them in place, keeping the focus where it is. */
async function nameRows(ctx: PageContext, items: readonly Delivery[]): Promise<void> {
  const queue = items.slice(0, SUBJECT_READS_PER_PAGE).filter((d) => d.event !== 'webhook.test' && !subjects.has(d.id));
  const worker = async (): Promise<void> => {
    for (let d = queue.shift(); d !== undefined && !ctx.signal.aborted; d = queue.shift()) {
      try {
        const detail = await ctx.api.get<DeliveryDetail>(`/api/webhooks/deliveries/${encodeURIComponent(d.id)}`, ctx.signal);
        subjects.set(d.id, subjectOf(d.event, detail.body));
      } catch {
        continue; // left as the event's name; the next redraw tries again
      }
      const subject = subjects.get(d.id) ?? null;
      const cell = ctx.root.querySelector<HTMLElement>(`[data-entry="${CSS.escape(d.id)}"]`);
      const link = cell === null ? null : cell.querySelector('a');
      if (subject === null || cell === null || link === null) continue;
      link.textContent = subject;
      if (cell.querySelector('small') === null) cell.append(h('small', { class: 'hint' }, eventLabel(d.event)));
    }
  };
  await Promise.all(Array.from({ length: SUBJECT_READS_AT_ONCE }, worker));
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
      render: (items) => {
        const el = deliveriesTable(items);
        queueMicrotask(() => void nameRows(ctx, items));
        return el;
      },
      changing: (items) => items.some((d) => d.status === 'pending' && d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) - Date.now() < 60_000),
    }),
  );
}
