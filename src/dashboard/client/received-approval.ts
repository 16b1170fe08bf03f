import type { PageContext } from './context.ts';
import { badge, busy, confirmAction, errorBox, facts, field, h, notice, time } from './dom.ts';
import type { Tone } from './labels.ts';
import type { ReceivedDetail, SentApproval } from './types.ts';

// The tenant's commercial approval, as buyer, of a received e-CF: Aprobar or Rechazar (with
// the reason DGII's ACECF carries), once. The signed ACECF then goes to the emisor and to DGII
// in the background; each of those two legs shows how it went.

const DECISIONS = {
  aprobado: { label: 'Aprobado', tone: 'ok' },
  rechazado: { label: 'Rechazado', tone: 'bad' },
} as const satisfies Record<SentApproval['estado'], { label: string; tone: Tone }>;

const LEGS = {
  pendiente: { label: 'Pendiente', tone: 'info' },
  enviado: { label: 'Enviado', tone: 'ok' },
  no_aplica: { label: 'No aplica', tone: 'neutral' },
  error: { label: 'Error', tone: 'bad' },
} as const satisfies Record<string, { label: string; tone: Tone }>;

function leg(l: SentApproval['emisor']): HTMLElement {
  // A state the page does not know yet is shown as it came.
  const shown: { label: string; tone: Tone } = Object.hasOwn(LEGS, l.estado) ? LEGS[l.estado as keyof typeof LEGS] : { label: l.estado, tone: 'neutral' };
  return h('span', null, badge(shown.label, shown.tone, l.estado), l.detalle === null ? null : h('span', { class: 'hint break' }, ' ', l.detalle));
}

function decisionFacts(a: SentApproval): HTMLElement {
  const d = DECISIONS[a.estado];
  return h('div', { 'data-approval': a.estado }, facts([
    ['Decisión', badge(d.label, d.tone, a.estado)],
    a.motivo === null ? null : ['Motivo', a.motivo],
    ['Envío al emisor', leg(a.emisor)],
    ['Envío a DGII', leg(a.dgii)],
    ['Decidida', time(a.createdAt)],
  ]));
}

/** The buttons that go in the received document's row of actions, and the part that shows the decision. */
export function approvalControls(ctx: PageContext, d: ReceivedDetail): { buttons: HTMLElement[]; section: HTMLElement } {
  const path = `/${ctx.env}/documentos-recibidos/${encodeURIComponent(d.id)}`;
  const status = h('div', { 'aria-live': 'polite' });
  const shown = h('div', null, d.aprobacionComercial === null ? h('p', { class: 'hint' }, 'Todavía no ha aprobado ni rechazado este documento.') : decisionFacts(d.aprobacionComercial));
  const approve = h('button', { type: 'button', 'data-action': 'approve' }, 'Aprobar');
  const reject = h('button', { type: 'button', class: 'danger', 'data-action': 'reject' }, 'Rechazar');
  const motivo = h('input', { type: 'text', name: 'motivo', maxlength: '250', required: true, autocomplete: 'off' });
  const send = h('button', { type: 'submit', class: 'danger' }, 'Enviar rechazo');
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancelar');
  const form = h('form', { class: 'stack narrow', 'aria-label': 'Rechazo', hidden: true },
    field('Motivo del rechazo', motivo, 'Lo recibe el emisor en la aprobación comercial (hasta 250 caracteres).'),
    h('div', { class: 'actions' }, send, cancel));

  const decided = (a: SentApproval, said: HTMLElement): void => {
    approve.hidden = true;
    reject.hidden = true;
    form.hidden = true;
    shown.replaceChildren(decisionFacts(a));
    status.replaceChildren(said);
    said.focus();
  };
  const decide = async (body: { estado: 'aprobado' } | { estado: 'rechazado'; motivo: string }): Promise<void> => {
    status.replaceChildren();
    try {
      const a = await ctx.api.post<SentApproval>(`${path}/aprobacion`, body);
      decided(a, notice(a.estado === 'aprobado' ? 'Documento aprobado: la aprobación se envía al emisor y a DGII.' : 'Documento rechazado: el rechazo se envía al emisor y a DGII.'));
    } catch (err) {
      const box = errorBox(err, { motivo: 'Motivo del rechazo' });
      status.replaceChildren(box);
      // Someone may have decided meanwhile (a 409): show that decision next to the error.
      const now = await ctx.api.get<ReceivedDetail>(path, ctx.signal).catch(() => null);
      if (now?.aprobacionComercial != null) decided(now.aprobacionComercial, box);
    }
  };

  approve.addEventListener('click', () => void busy(approve, async () => {
    if (await confirmAction(`¿Aprobar comercialmente el e-CF ${d.encf} de ${d.razonSocialEmisor}? La decisión no se puede cambiar.`, 'Aprobar')) await decide({ estado: 'aprobado' });
  }));
  reject.addEventListener('click', () => {
    form.hidden = false;
    motivo.focus();
  });
  cancel.addEventListener('click', () => {
    form.hidden = true;
    reject.focus();
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void busy(send, () => decide({ estado: 'rechazado', motivo: motivo.value.trim() }));
  });
  if (d.aprobacionComercial !== null) {
    approve.hidden = true;
    reject.hidden = true;
  }
  const section = h('section', { class: 'card', 'aria-labelledby': 'rd-approval' },
    h('h2', { id: 'rd-approval' }, 'Aprobación comercial'), shown, form, status);
  return { buttons: [approve, reject], section };
}

