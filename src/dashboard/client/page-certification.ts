import { poll, type PageContext } from './context.ts';
import { saveAs } from './download.ts';
import { badge, busy, empty, errorBox, field, h, loading, notice, table } from './dom.ts';
import { CASE_ESTADOS, STEP_ESTADOS } from './labels.ts';
import type { CertificationProgress, CertificationSet, CertificationStep } from './types.ts';

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

/** Signs the postulación the portal gave (an XML file) and hands the signed copy back as a download. */
function postulacionPart(ctx: PageContext, signed: () => Promise<void>): HTMLElement {
  const file = h('input', { type: 'file', name: 'postulacion', accept: '.xml,application/xml,text/xml', required: true });
  const status = h('div', { 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Firmar postulación');
  const form = h('form', { class: 'stack narrow', 'aria-labelledby': 'cert-postulacion', novalidate: true },
    field('Archivo de la postulación (XML)', file, 'El archivo que descarga en «Crear Postulación» del portal de la DGII. Se firma con el certificado de la cuenta.'),
    h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const chosen = file.files?.[0];
    if (chosen === undefined) {
      status.replaceChildren(notice('Elija el archivo XML de la postulación.', 'warn'));
      return;
    }
    void busy(submit, async () => {
      status.replaceChildren();
      try {
        const blob = await ctx.api.exchangeFile(`/${ctx.env}/certificacion/firmar`, chosen, 'application/xml');
        const href = URL.createObjectURL(new Blob([blob], { type: 'application/xml' }));
        status.replaceChildren(notice('Postulación firmada. Súbala firmada al portal de la DGII.'),
          h('p', null, h('a', { href, download: chosen.name.replace(/\.xml$/i, '') + '_firmada.xml', 'data-action': 'signed-postulacion' }, 'Descargar la postulación firmada')));
        await signed();
      } catch (err) {
        status.replaceChildren(errorBox(err));
      }
    });
  });
  return h('section', { class: 'card' }, h('h2', { id: 'cert-postulacion' }, 'Postulación'), form, status);
}

/** DGII's test set: import the workbook, send it in DGII's order, follow each case, download the review ZIP. */
function setPart(ctx: PageContext, changed: () => Promise<void>): { section: HTMLElement; reload: () => Promise<void> } {
  const file = h('input', { type: 'file', name: 'set', accept: '.xlsx,.csv,text/csv', required: true });
  const status = h('div', { 'aria-live': 'polite' });
  const cases = h('div', null, loading());
  const importButton = h('button', { type: 'submit' }, 'Importar set');
  const sendButton = h('button', { type: 'button', 'data-action': 'send-set', hidden: true }, 'Enviar set');
  const reviewButton = h('button', { type: 'button', class: 'secondary', 'data-action': 'review-zip', hidden: true }, 'Descargar ZIP de revisión');
  const show = (set: CertificationSet | null): void => {
    sendButton.hidden = set === null || set.casos.every((c) => c.estado === 'aceptado');
    reviewButton.hidden = set === null || !set.casos.some((c) => c.documentId !== null);
    if (set === null) {
      cases.replaceChildren(empty('No hay un set de pruebas importado en este ambiente.'));
      return;
    }
    const r = set.resumen;
    cases.replaceChildren(
      h('p', null, `${set.origen}: e-CF ${r.ecf.aceptados} de ${r.ecf.total} aceptados; aprobaciones comerciales ${r.aprobaciones.aceptados} de ${r.aprobaciones.total}.`),
      table(['Caso', 'Fase', 'e-NCF', 'Estado', 'Detalle'], set.casos.map((c) => {
        const e = CASE_ESTADOS[c.estado];
        return [c.caso, c.faseNombre, h('span', { class: 'mono' }, c.encf), badge(e.label, e.tone, c.estado), c.detalle ?? '—'];
      }), { 'data-list': 'certification-cases', 'data-titled': '' }));
  };
  const reload = async (): Promise<void> => {
    try {
      show(await ctx.api.get<CertificationSet | null>(`/${ctx.env}/certificacion/set`, ctx.signal));
    } catch (err) {
      if (!ctx.signal.aborted) cases.replaceChildren(errorBox(err));
    }
  };
  const form = h('form', { class: 'stack narrow', 'aria-labelledby': 'cert-set', novalidate: true },
    field('Set de pruebas (.xlsx o CSV)', file, 'El libro de casos que entrega la DGII. Todos los casos se validan antes de guardar o enviar nada.'),
    h('div', { class: 'actions' }, importButton));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const chosen = file.files?.[0];
    if (chosen === undefined) {
      status.replaceChildren(notice('Elija el archivo del set de pruebas.', 'warn'));
      return;
    }
    void busy(importButton, async () => {
      status.replaceChildren();
      try {
        const set = await ctx.api.upload<CertificationSet>(`/${ctx.env}/certificacion/set`, chosen, 'application/octet-stream');
        status.replaceChildren(notice(`Set importado: ${set.casos.length} casos validados.`));
        show(set);
        await changed();
      } catch (err) {
        status.replaceChildren(errorBox(err));
      }
    });
  });
  // Each call takes in DGII's verdicts and sends what may go now; it is repeated while cases wait.
  const step = async (): Promise<boolean> => {
    const set = await ctx.api.post<CertificationSet>(`/${ctx.env}/certificacion/set/enviar`);
    show(set);
    await changed();
    const waiting = set.casos.some((c) => c.estado === 'enviado');
    const stopped = set.casos.some((c) => c.estado === 'rechazado');
    const open = set.casos.some((c) => c.estado !== 'aceptado');
    if (!open) status.replaceChildren(notice('Todos los casos del set fueron aceptados.'));
    else if (stopped && !waiting) status.replaceChildren(notice('El envío se detuvo: hay casos rechazados. Vea el detalle, corrija el set e impórtelo de nuevo.', 'bad'));
    return open && (waiting || !stopped);
  };
  sendButton.addEventListener('click', () => {
    void busy(sendButton, async () => {
      status.replaceChildren(notice('Enviando el set en el orden de la DGII…', 'info'));
      try {
        if (await step()) poll(ctx.signal, 1500, step);
      } catch (err) {
        status.replaceChildren(errorBox(err));
      }
    });
  });
  reviewButton.addEventListener('click', () => {
    void busy(reviewButton, () => saveAs(ctx, `/${ctx.env}/certificacion/set/revision.zip`, `revision-representacion-impresa-${ctx.env}.zip`, 'application/zip', status));
  });
  const section = h('section', { class: 'card' }, h('h2', { id: 'cert-set' }, 'Set de pruebas'), form,
    h('div', { class: 'actions' }, sendButton, reviewButton), status, cases);
  return { section, reload };
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
  const set = setPart(ctx, () => reload());
  ctx.root.append(
    h('p', { class: 'lead' }, 'Los pasos del portal de certificación de la DGII para ser emisor electrónico, en el ambiente ', h('strong', null, ctx.env), '. ',
      'Los sets de pruebas y las aprobaciones comerciales se envían a CerteCF.'),
    h('section', { class: 'card' }, h('h2', null, 'Progreso'), summary, status, list),
    postulacionPart(ctx, () => reload()),
    set.section,
  );
  await Promise.all([reload(), set.reload()]);
}
