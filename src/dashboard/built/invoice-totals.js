// Built from src/dashboard/client/invoice-totals.ts by `npm run build:dashboard`: edit that file, not this one.
import { formatDec } from "./decimal.js";
import { h, money } from "./dom.js";
import { RATE_LABELS, TYPE_FORMS } from "./invoice-body.js";
const fact = (label, field, value, strong = false) => value === null ? [] : [
    h('dt', null, label),
    h('dd', { 'data-field': field, 'data-value': formatDec(value) }, strong ? h('strong', null, money(formatDec(value))) : money(formatDec(value))),
];
export function totalsView() {
    const totalsList = h('dl', { class: 'facts totals', 'data-list': 'invoice-totals' });
    const section = h('section', { class: 'card', 'aria-labelledby': 'inv-totals' }, h('h2', { id: 'inv-totals' }, 'Totales'), totalsList);
    return {
        section,
        show: (totals, tipo) => {
            const tf = TYPE_FORMS[tipo];
            totalsList.replaceChildren(...totals.byRate.flatMap((r) => [
                ...fact(`Gravado ${RATE_LABELS[r.indicator].replace('ITBIS ', '')}`, `gravado-${r.indicator}`, r.base),
                ...fact(RATE_LABELS[r.indicator], `itbis-${r.indicator}`, r.itbis),
            ]), ...fact('Exento', 'exento', totals.exento), ...fact('ITBIS total', 'itbis-total', totals.totalItbis ?? (tf.rates.some((x) => x !== 4) ? { units: 0, scale: 2 } : null)), ...fact('Total', 'total', totals.total, true));
        },
    };
}
