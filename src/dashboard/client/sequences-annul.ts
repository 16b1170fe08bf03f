import { poll, type PageContext } from './context.ts';
import { badge, busy, confirmAction, empty, errorBox, field, h, loading, notice, orDash, select, table, time } from './dom.ts';
import { ANNULMENT_ESTADOS, TIPOS } from './labels.ts';
import { tipoLabel } from './page-documents.ts';
import type { Annulment, Page } from './types.ts';

// Annulling eNCF numbers that will never be used (DGII's ANECF): unused numbers of a range and
// numbers of documents in error. The request is signed and sent in the background; the list
// follows it until DGII answers.

/** How the API's fields are called in the Secuencias forms, for its 422 details. */
export const SEQUENCE_FIELDS: Readonly<Record<string, string>> = {
  tipo: 'Tipo', desde: 'Desde', hasta: 'Hasta', fechaVencimiento: 'Fecha de vencimiento',
};

export function tipoSelect(name: string): HTMLSelectElement {
  return select(name, Object.entries(TIPOS).map(([n, label]) => [n, `${n} · ${label}`] as const), '31');
}

export function encfInput(name: string, placeholder: string): HTMLInputElement {
  return h('input', { type: 'text', name, required: true, pattern: 'E[0-9]{12}', placeholder, autocomplete: 'off', spellcheck: 'false', class: 'mono' });
}

/** The annulment form, which a range's row can fill with the numbers it has left. */
export interface AnnulForm {
  fill(tipo: number, desde: string, hasta: string): void;
}

export function annulmentPart(ctx: PageContext, changed: () => Promise<void>): AnnulForm & { sections: HTMLElement[]; reload(): Promise<void> } {
  const list = h('div', null, loading());
  let polling = false;
  const reload = async (): Promise<void> => {
    try {
      const page = await ctx.api.get<Page<Annulment>>(`/${ctx.env}/anulaciones?pageSize=50`, ctx.signal);
      list.replaceChildren(page.items.length === 0 ? empty('No ha anulado números en este ambiente.') : table(
        ['Tipo', 'Desde – hasta', 'Cantidad', 'Estado', 'Respuesta DGII', 'Solicitada'],
        page.items.map((a) => {
          const e = ANNULMENT_ESTADOS[a.estado];
          return [
            tipoLabel(a.tipo),
            h('span', { class: 'mono' }, a.desde, ' – ', a.hasta),
            String(a.cantidad),
            badge(e.label, e.tone, a.estado),
            a.dgiiCode === null && a.dgiiMessage === null ? '—' : `${orDash(a.dgiiCode)} · ${orDash(a.dgiiMessage)}`,
            time(a.createdAt),
          ];
        }), { 'data-list': 'annulments', 'data-titled': '' }));
      // Until DGII answers, the list (and the ranges an accepted annulment changes) follow it.
      if (!polling && page.items.some((a) => a.estado === 'recibido')) {
        polling = true;
        poll(ctx.signal, 1500, async () => {
          await reload();
          const pending = list.querySelector('.badge[data-value="recibido"]') !== null;
          if (!pending) {
            polling = false;
            await changed();
          }
          return pending;
        });
      }
    } catch (err) {
      if (!ctx.signal.aborted) list.replaceChildren(errorBox(err));
    }
  };

  const tipo = tipoSelect('tipo');
  const desde = encfInput('desde', 'E310000000101');
  const hasta = encfInput('hasta', 'E310000000200');
  const status = h('div', { 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'danger' }, 'Anular');
  const form = h('form', { class: 'filters', 'aria-labelledby': 'seq-annul', novalidate: true },
    field('Tipo', tipo), field('Desde', desde), field('Hasta', hasta), h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void busy(submit, async () => {
      status.replaceChildren();
      const body = { tipo: Number(tipo.value), desde: desde.value.trim().toUpperCase(), hasta: hasta.value.trim().toUpperCase() };
      if (!(await confirmAction(`¿Anular ante la DGII los números ${body.desde}–${body.hasta}? Nunca se podrán usar.`, 'Anular números'))) return;
      try {
        const a = await ctx.api.post<Annulment>(`/${ctx.env}/anulaciones`, body);
        status.replaceChildren(notice(`Anulación de ${a.cantidad} números (${a.desde}–${a.hasta}) enviada a la DGII.`));
        await Promise.all([reload(), changed()]);
      } catch (err) {
        status.replaceChildren(errorBox(err, SEQUENCE_FIELDS));
      }
    });
  });

  return {
    sections: [
      h('section', { class: 'card' },
        h('h2', { id: 'seq-annul' }, 'Anular números'),
        h('p', { class: 'hint' }, 'Para los números que no usará: los disponibles de una secuencia y los de documentos en error. Los demás documentos no se pueden anular.'),
        form, status),
      h('section', { class: 'card' }, h('h2', null, 'Anulaciones'), list),
    ],
    reload,
    fill: (t, from, to) => {
      tipo.value = String(t);
      desde.value = from;
      hasta.value = to;
      status.replaceChildren();
      desde.focus();
    },
  };
}
