import type { PageContext } from './context.ts';
import { badge, busy, errorBox, h, loading, notice, table } from './dom.ts';
import { STEP_ESTADOS } from './labels.ts';
import type { CertificationProgress, CertificationStep } from './types.ts';

// DGII's certification portal, step by step: where the tenant stands in each of the portal's
// steps in this environment, what is left, and for the steps only the portal knows about a
// button to say the step is done (or to undo it).

const ORIGENES = {
  servicio: 'Lo sabe el servicio',
  marcado: 'Marcado por usted',
  portal: 'Se hace en el portal de la DGII',
} as const satisfies Record<CertificationStep['origen'], string>;

function action(ctx: PageContext, step: CertificationStep, changed: (message: string) => Promise<void>, status: HTMLElement): HTMLElement | string {
  if (step.origen === 'servicio') return '';
  const done = step.estado === 'completado';
  const label = done ? 'Deshacer' : 'Marcar completado';
  const button = h('button', {
    type: 'button', class: 'secondary small', 'data-action': done ? 'unmark-step' : 'mark-step',
    'aria-label': `${label}: ${step.nombre}`,
  }, label);
  button.addEventListener('click', () => {
    void busy(button, async () => {
      try {
        await ctx.api.put<CertificationStep>(`/${ctx.env}/certificacion/pasos/${step.clave}`, { estado: done ? 'pendiente' : 'completado' });
        await changed(done ? `Paso ${step.numero} vuelve a pendiente.` : `Paso ${step.numero} marcado como completado.`);
      } catch (err) {
        status.replaceChildren(errorBox(err));
      }
    });
  });
  return button;
}

export async function certificationPage(ctx: PageContext): Promise<void> {
  const summary = h('p', { 'aria-live': 'polite' });
  const status = h('div', { 'aria-live': 'polite' });
  const list = h('div', null, loading());
  const reload = async (message: string | null = null): Promise<void> => {
    try {
      const p = await ctx.api.get<CertificationProgress>(`/${ctx.env}/certificacion`, ctx.signal);
      summary.textContent = `${p.completados} de ${p.total} pasos completados en ${ctx.env}.`;
      status.replaceChildren(...(message === null ? [] : [notice(message)]));
      list.replaceChildren(table(['N.º', 'Paso', 'Estado', 'Qué falta', ''], p.pasos.map((s) => {
        const e = STEP_ESTADOS[s.estado];
        return [
          String(s.numero),
          h('span', null, h('strong', null, s.nombre), h('br'), h('span', { class: 'hint' }, ORIGENES[s.origen], s.nota === null ? '' : ` · ${s.nota}`)),
          badge(e.label, e.tone, s.estado),
          s.faltante ?? '—',
          action(ctx, s, (m) => reload(m), status),
        ];
      }), { 'data-list': 'certification-steps', 'data-titled': '' }));
    } catch (err) {
      if (!ctx.signal.aborted) list.replaceChildren(errorBox(err));
    }
  };
  ctx.root.append(
    h('p', { class: 'lead' }, 'Los pasos del portal de certificación de la DGII para ser emisor electrónico, en el ambiente ', h('strong', null, ctx.env), '. ',
      'La postulación se firma con POST /{env}/certificacion/firmar; los sets de prueba y las aprobaciones comerciales se envían a CerteCF.'),
    h('section', { class: 'card' }, h('h2', null, 'Progreso'), summary, status, list),
  );
  await reload();
}
