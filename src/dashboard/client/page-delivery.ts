import { poll, type PageContext } from './context.ts';
import { deliveryBadge, eventLabel, subjectLabel } from './delivery-view.ts';
import { busy, errorBox, facts, h, loading, notice, orDash, table, time } from './dom.ts';
import { deliveryError } from './errors.ts';
import { lastDeliveriesHash } from './page-deliveries.ts';
import type { Delivery, DeliveryDetail } from './types.ts';

// One delivery: the body that was sent, every attempt with the receiver's answer, and a
// button to send it again.

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The exact body, with a toggle to a pretty view that leaves the exact one a click away. */
function bodyView(body: string): HTMLElement {
  const pre = h('pre', { class: 'response', 'data-body': 'exact' }, body);
  const toggle = h('button', { type: 'button', class: 'secondary small', 'aria-pressed': 'false', 'data-action': 'pretty' }, 'Ver formateado');
  toggle.addEventListener('click', () => {
    const pretty = toggle.getAttribute('aria-pressed') !== 'true';
    toggle.setAttribute('aria-pressed', String(pretty));
    pre.textContent = pretty ? prettyJson(body) : body;
    pre.dataset.body = pretty ? 'pretty' : 'exact';
  });
  return h('div', null, h('div', { class: 'actions' }, toggle), pre);
}

function view(d: DeliveryDetail, redeliver: HTMLElement): HTMLElement[] {
  const subject = d.event === 'webhook.test' ? 'Prueba de conexión enviada desde el panel' : subjectLabel(d);
  return [
    h('section', { class: 'card', 'aria-labelledby': 'dl-summary' },
      h('h2', { id: 'dl-summary' }, 'Resumen'),
      facts([
        ['Estado', deliveryBadge(d)],
        ['Evento', eventLabel(d.event)],
        subject === null ? null : ['Asunto', h('span', { 'data-field': 'subject' }, subject)],
        ['URL', h('span', { class: 'mono break' }, d.url)],
        ['Intentos', String(d.attemptCount)],
        ['Último código HTTP', orDash(d.lastStatusCode)],
        d.lastError === null ? null : ['Último error', deliveryError(d.lastError)],
        ['Último intento', time(d.lastAttemptAt)],
        d.status === 'pending' ? ['Próximo intento', time(d.nextAttemptAt)] : null,
        d.deliveredAt === null ? null : ['Entregada', time(d.deliveredAt)],
        ['Creada', time(d.createdAt)],
        ['ID de entrega', h('span', { class: 'mono break' }, d.id)],
      ]),
      redeliver,
    ),
    h('section', { class: 'card', 'aria-labelledby': 'dl-attempts' },
      h('h2', { id: 'dl-attempts' }, 'Intentos'),
      d.attempts.length === 0
        ? h('p', { class: 'empty' }, 'Todavía no hay intentos.')
        : table(['#', 'Fecha', 'Resultado', 'Código HTTP', 'Duración', 'Error', 'Respuesta'], d.attempts.map((a) => [
          String(a.number),
          time(a.at),
          h('span', { class: `badge badge-${a.ok ? 'ok' : 'bad'}`, 'data-value': a.ok ? 'ok' : 'failed' }, a.ok ? 'Correcto' : 'Falló'),
          orDash(a.statusCode),
          `${a.durationMs} ms`,
          a.error === null ? '—' : deliveryError(a.error),
          a.responseBody === '' ? '—' : h('pre', { class: 'response' }, a.responseBody),
        ]), { 'data-list': 'attempts' }),
    ),
    h('section', { class: 'card', 'aria-labelledby': 'dl-body' },
      h('h2', { id: 'dl-body' }, 'Cuerpo enviado'),
      h('p', { class: 'hint' }, 'Exactamente los bytes que recibió su receptor (los que firma X-ECF-Signature). «Ver formateado» solo cambia cómo se muestran.'),
      bodyView(d.body),
    ),
  ];
}

export async function deliveryPage(ctx: PageContext): Promise<void> {
  const id = ctx.params.id ?? '';
  const path = `/api/webhooks/deliveries/${encodeURIComponent(id)}`;
  const body = h('div', { class: 'stack' }, loading());
  const status = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', 'data-action': 'redeliver' }, 'Reenviar ahora');
  ctx.root.append(h('p', null, h('a', { href: lastDeliveriesHash }, '← Volver a entregas')), status, body);

  let shown = '';
  let polling = false;
  const show = async (): Promise<boolean> => {
    const d = await ctx.api.get<DeliveryDetail>(path, ctx.signal);
    const snapshot = JSON.stringify(d);
    if (snapshot !== shown) {
      shown = snapshot;
      const focused = document.activeElement === button;
      body.replaceChildren(...view(d, h('div', { class: 'actions' }, button)));
      if (focused) button.focus();
    }
    return d.status === 'pending';
  };
  const keepCurrent = async (): Promise<void> => {
    if (!polling && (await show())) {
      polling = true;
      poll(ctx.signal, 1000, async () => (polling = await show()));
    }
  };

  button.addEventListener('click', () => void busy(button, async () => {
    status.replaceChildren();
    try {
      const d = await ctx.api.post<Delivery>(`${path}/redeliver`, {});
      status.replaceChildren(notice(d.status === 'delivered' ? 'Reenviada.' : 'Reenvío iniciado: el primer intento sale ahora.'));
      await keepCurrent();
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  }));

  try {
    await keepCurrent();
  } catch (err) {
    if (!ctx.signal.aborted) body.replaceChildren(errorBox(err));
  }
}
