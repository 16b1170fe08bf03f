// Built from src/dashboard/client/page-sequences.ts by `npm run build:dashboard`: edit that file, not this one.
import { badge, busy, dgiiDate, empty, errorBox, field, h, loading, notice, orDash, table } from "./dom.js";
import { RANGE_ESTADOS } from "./labels.js";
import { tipoLabel } from "./page-documents.js";
import { annulmentPart, encfInput, SEQUENCE_FIELDS, tipoSelect } from "./sequences-annul.js";
const NO_EXPIRY = new Set(['32', '34']);
function dgiiDay(iso) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
    return m === null ? iso : `${m[3]}-${m[2]}-${m[1]}`;
}
function registerForm(ctx, registered) {
    const tipo = tipoSelect('tipo');
    const desde = encfInput('desde', 'E310000000001');
    const hasta = encfInput('hasta', 'E310000005000');
    const vence = h('input', { type: 'date', name: 'fechaVencimiento' });
    const venceField = field('Fecha de vencimiento', vence, 'La FechaVencimientoSecuencia que autorizó la DGII. Los tipos 32 y 34 no vencen.');
    const status = h('div', { 'aria-live': 'polite' });
    const submit = h('button', { type: 'submit' }, 'Registrar secuencia');
    const sync = () => {
        const none = NO_EXPIRY.has(tipo.value);
        venceField.hidden = none;
        vence.required = !none;
    };
    tipo.addEventListener('change', sync);
    sync();
    const form = h('form', { class: 'stack narrow', 'aria-labelledby': 'seq-new', novalidate: true }, field('Tipo', tipo), field('Desde', desde), field('Hasta', hasta), venceField, h('div', { class: 'actions' }, submit));
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        void busy(submit, async () => {
            status.replaceChildren();
            const body = {
                tipo: Number(tipo.value),
                desde: desde.value.trim().toUpperCase(),
                hasta: hasta.value.trim().toUpperCase(),
                ...(NO_EXPIRY.has(tipo.value) || vence.value === '' ? {} : { fechaVencimiento: dgiiDay(vence.value) }),
            };
            try {
                const r = await ctx.api.post(`/${ctx.env}/secuencias`, body);
                status.replaceChildren(notice(`Secuencia ${r.desde}–${r.hasta} registrada: ${r.disponibles} números disponibles.`));
                desde.value = '';
                hasta.value = '';
                await registered();
            }
            catch (err) {
                status.replaceChildren(errorBox(err, SEQUENCE_FIELDS));
            }
        });
    });
    return h('div', null, form, status);
}
function daysUntil(dgii) {
    const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(dgii);
    if (m === null)
        return null;
    const now = new Date();
    const today = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
    return Math.round((Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1])) - today) / 86_400_000);
}
function expiry(r, warningDays) {
    if (r.fechaVencimiento === null)
        return 'No vence';
    const days = daysUntil(r.fechaVencimiento);
    if (r.estado !== 'activa' || days === null || days < 0 || days > warningDays)
        return dgiiDate(r.fechaVencimiento);
    return h('span', { 'data-field': 'expiring' }, dgiiDate(r.fechaVencimiento), ' ', badge(days === 0 ? 'Vence hoy' : `Vence en ${days} ${days === 1 ? 'día' : 'días'}`, 'warn', 'expiring'));
}
function rangesTable(ranges, annul, warningDays) {
    return table(['Tipo', 'Desde – hasta', 'Siguiente', 'Disponibles', 'Vence', 'Estado', ''], ranges.map((r) => {
        const e = RANGE_ESTADOS[r.estado];
        const action = r.siguiente === null ? '' : h('button', {
            type: 'button', class: 'secondary small', 'data-action': 'annul-range', 'aria-label': `Anular disponibles de ${r.desde}–${r.hasta}`,
            onclick: () => annul.fill(r.tipo, r.siguiente ?? r.desde, r.hasta),
        }, 'Anular disponibles');
        return [
            tipoLabel(r.tipo),
            h('span', { class: 'mono' }, r.desde, ' – ', r.hasta),
            h('span', { class: 'mono' }, orDash(r.siguiente)),
            String(r.disponibles),
            expiry(r, warningDays),
            badge(e.label, e.tone, r.estado),
            action,
        ];
    }), { 'data-list': 'ranges', 'data-titled': '' });
}
export async function sequencesPage(ctx) {
    const list = h('div', null, loading());
    const reload = async () => {
        try {
            const [ranges, config] = await Promise.all([ctx.api.get(`/${ctx.env}/secuencias`, ctx.signal), ctx.api.publicConfig()]);
            list.replaceChildren(ranges.length === 0
                ? empty('No hay secuencias registradas en este ambiente.' + (ctx.env === 'eCF' ? ' En producción no se puede emitir sin una.' : ' Mientras no registre una de un tipo, ese tipo se numera desde 1.'))
                : rangesTable(ranges, annul, config.sequenceExpiryWarningDays));
        }
        catch (err) {
            if (!ctx.signal.aborted)
                list.replaceChildren(errorBox(err));
        }
    };
    const annul = annulmentPart(ctx, reload);
    ctx.root.append(h('p', { class: 'lead' }, 'Rangos de eNCF que la DGII le autorizó en el ambiente ', h('strong', null, ctx.env), '.'), h('section', { class: 'card' }, h('h2', { id: 'seq-new' }, 'Registrar una secuencia autorizada'), h('p', { class: 'hint' }, 'Copie el rango y su vencimiento tal como aparecen en la Oficina Virtual de la DGII.'), registerForm(ctx, reload)), h('section', { class: 'card' }, h('h2', null, 'Secuencias'), list), ...annul.sections);
    await Promise.all([reload(), annul.reload()]);
}
