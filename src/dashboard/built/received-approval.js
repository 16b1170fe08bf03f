// Built from src/dashboard/client/received-approval.ts by `npm run build:dashboard`: edit that file, not this one.
import { badge, busy, confirmAction, errorBox, facts, field, h, notice, time } from "./dom.js";
const DECISIONS = {
    aprobado: { label: 'Aprobado', tone: 'ok' },
    rechazado: { label: 'Rechazado', tone: 'bad' },
};
const LEGS = {
    pendiente: { label: 'Pendiente', tone: 'info' },
    enviado: { label: 'Enviado', tone: 'ok' },
    no_aplica: { label: 'No aplica', tone: 'neutral' },
    error: { label: 'Error', tone: 'bad' },
};
function leg(l) {
    const shown = Object.hasOwn(LEGS, l.estado) ? LEGS[l.estado] : { label: l.estado, tone: 'neutral' };
    return h('span', null, badge(shown.label, shown.tone, l.estado), l.detalle === null ? null : h('span', { class: 'hint break' }, ' ', l.detalle));
}
function decisionFacts(a) {
    const d = DECISIONS[a.estado];
    return h('div', { 'data-approval': a.estado }, facts([
        ['Decisión', badge(d.label, d.tone, a.estado)],
        a.motivo === null ? null : ['Motivo', a.motivo],
        ['Envío al emisor', leg(a.emisor)],
        ['Envío a DGII', leg(a.dgii)],
        ['Decidida', time(a.createdAt)],
    ]));
}
export function approvalControls(ctx, d) {
    const path = `/${ctx.env}/documentos-recibidos/${encodeURIComponent(d.id)}`;
    const status = h('div', { 'aria-live': 'polite' });
    const shown = h('div', null, d.aprobacionComercial === null ? h('p', { class: 'hint' }, 'Todavía no ha aprobado ni rechazado este documento.') : decisionFacts(d.aprobacionComercial));
    const approve = h('button', { type: 'button', 'data-action': 'approve' }, 'Aprobar');
    const reject = h('button', { type: 'button', class: 'danger', 'data-action': 'reject' }, 'Rechazar');
    const motivo = h('input', { type: 'text', name: 'motivo', maxlength: '250', required: true, autocomplete: 'off' });
    const send = h('button', { type: 'submit', class: 'danger' }, 'Enviar rechazo');
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancelar');
    const form = h('form', { class: 'stack narrow', 'aria-label': 'Rechazo', hidden: true }, field('Motivo del rechazo', motivo, 'Lo recibe el emisor en la aprobación comercial (hasta 250 caracteres).'), h('div', { class: 'actions' }, send, cancel));
    const decided = (a, said) => {
        approve.hidden = true;
        reject.hidden = true;
        form.hidden = true;
        shown.replaceChildren(decisionFacts(a));
        status.replaceChildren(said);
        said.focus();
    };
    const decide = async (body) => {
        status.replaceChildren();
        try {
            const a = await ctx.api.post(`${path}/aprobacion`, body);
            decided(a, notice(a.estado === 'aprobado' ? 'Documento aprobado: la aprobación se envía al emisor y a DGII.' : 'Documento rechazado: el rechazo se envía al emisor y a DGII.'));
        }
        catch (err) {
            const box = errorBox(err, { motivo: 'Motivo del rechazo' });
            status.replaceChildren(box);
            const now = await ctx.api.get(path, ctx.signal).catch(() => null);
            if (now?.aprobacionComercial != null)
                decided(now.aprobacionComercial, box);
        }
    };
    approve.addEventListener('click', () => void busy(approve, async () => {
        if (await confirmAction(`¿Aprobar comercialmente el e-CF ${d.encf} de ${d.razonSocialEmisor}? La decisión no se puede cambiar.`, 'Aprobar'))
            await decide({ estado: 'aprobado' });
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
    const section = h('section', { class: 'card', 'aria-labelledby': 'rd-approval' }, h('h2', { id: 'rd-approval' }, 'Aprobación comercial'), shown, form, status);
    return { buttons: [approve, reject], section };
}
