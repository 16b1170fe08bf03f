// Built from src/dashboard/client/sequences-annul.ts by `npm run build:dashboard`: edit that file, not this one.
import { poll } from "./context.js";
import { badge, busy, confirmAction, empty, errorBox, field, h, loading, notice, orDash, select, table, time } from "./dom.js";
import { ANNULMENT_ESTADOS, TIPOS } from "./labels.js";
import { tipoLabel } from "./page-documents.js";
export const SEQUENCE_FIELDS = {
    tipo: 'Tipo', desde: 'Desde', hasta: 'Hasta', fechaVencimiento: 'Fecha de vencimiento',
};
export function tipoSelect(name) {
    return select(name, Object.entries(TIPOS).map(([n, label]) => [n, `${n} · ${label}`]), '31');
}
export function encfInput(name, placeholder) {
    return h('input', { type: 'text', name, required: true, pattern: 'E[0-9]{12}', placeholder, autocomplete: 'off', spellcheck: 'false', class: 'mono' });
}
export function annulmentPart(ctx, changed) {
    const list = h('div', null, loading());
    let polling = false;
    const reload = async () => {
        try {
            const page = await ctx.api.get(`/${ctx.env}/anulaciones?pageSize=50`, ctx.signal);
            list.replaceChildren(page.items.length === 0 ? empty('No ha anulado números en este ambiente.') : table(['Tipo', 'Desde – hasta', 'Cantidad', 'Estado', 'Respuesta DGII', 'Solicitada'], page.items.map((a) => {
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
        }
        catch (err) {
            if (!ctx.signal.aborted)
                list.replaceChildren(errorBox(err));
        }
    };
    const tipo = tipoSelect('tipo');
    const desde = encfInput('desde', 'E310000000101');
    const hasta = encfInput('hasta', 'E310000000200');
    const status = h('div', { 'aria-live': 'polite' });
    const submit = h('button', { type: 'submit', class: 'danger' }, 'Anular');
    const form = h('form', { class: 'filters', 'aria-labelledby': 'seq-annul', novalidate: true }, field('Tipo', tipo), field('Desde', desde), field('Hasta', hasta), h('div', { class: 'actions' }, submit));
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        void busy(submit, async () => {
            status.replaceChildren();
            const body = { tipo: Number(tipo.value), desde: desde.value.trim().toUpperCase(), hasta: hasta.value.trim().toUpperCase() };
            if (!(await confirmAction(`¿Anular ante la DGII los números ${body.desde}–${body.hasta}? Nunca se podrán usar.`, 'Anular números')))
                return;
            try {
                const a = await ctx.api.post(`/${ctx.env}/anulaciones`, body);
                status.replaceChildren(notice(`Anulación de ${a.cantidad} números (${a.desde}–${a.hasta}) enviada a la DGII.`));
                await Promise.all([reload(), changed()]);
            }
            catch (err) {
                status.replaceChildren(errorBox(err, SEQUENCE_FIELDS));
            }
        });
    });
    return {
        sections: [
            h('section', { class: 'card' }, h('h2', { id: 'seq-annul' }, 'Anular números'), h('p', { class: 'hint' }, 'Para los números que no usará: los disponibles de una secuencia y los de documentos en error. Los demás documentos no se pueden anular.'), form, status),
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
