// Built from src/dashboard/client/page-certification.ts by `npm run build:dashboard`: edit that file, not this one.
import { badge, busy, errorBox, h, loading, notice, table } from "./dom.js";
import { STEP_ESTADOS } from "./labels.js";
const ORIGENES = {
    servicio: 'Lo sabe el servicio',
    marcado: 'Marcado por usted',
    portal: 'Se hace en el portal de la DGII',
};
function action(ctx, step, changed, status) {
    if (step.origen === 'servicio')
        return '';
    const done = step.estado === 'completado';
    const label = done ? 'Deshacer' : 'Marcar completado';
    const button = h('button', {
        type: 'button', class: 'secondary small', 'data-action': done ? 'unmark-step' : 'mark-step',
        'aria-label': `${label}: ${step.nombre}`,
    }, label);
    button.addEventListener('click', () => {
        void busy(button, async () => {
            try {
                await ctx.api.put(`/${ctx.env}/certificacion/pasos/${step.clave}`, { estado: done ? 'pendiente' : 'completado' });
                await changed(done ? `Paso ${step.numero} vuelve a pendiente.` : `Paso ${step.numero} marcado como completado.`);
            }
            catch (err) {
                status.replaceChildren(errorBox(err));
            }
        });
    });
    return button;
}
export async function certificationPage(ctx) {
    const summary = h('p', { 'aria-live': 'polite' });
    const status = h('div', { 'aria-live': 'polite' });
    const list = h('div', null, loading());
    const reload = async (message = null) => {
        try {
            const p = await ctx.api.get(`/${ctx.env}/certificacion`, ctx.signal);
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
        }
        catch (err) {
            if (!ctx.signal.aborted)
                list.replaceChildren(errorBox(err));
        }
    };
    ctx.root.append(h('p', { class: 'lead' }, 'Los pasos del portal de certificación de la DGII para ser emisor electrónico, en el ambiente ', h('strong', null, ctx.env), '. ', 'La postulación se firma con POST /{env}/certificacion/firmar; los sets de prueba y las aprobaciones comerciales se envían a CerteCF.'), h('section', { class: 'card' }, h('h2', null, 'Progreso'), summary, status, list));
    await reload();
}
