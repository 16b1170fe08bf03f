import { formatDec, type Dec } from '../../ecf/decimal.ts';
import type { EcfTipo } from '../../ecf/ecf-types.ts';
import type { DocumentTotals } from '../../ecf/totals.ts';
import { h, money } from './dom.ts';
import { RATE_LABELS, TYPE_FORMS } from './invoice-body.ts';

// The invoice form's totals, as computed while the person types: per rate the taxable base and
// its ITBIS, the exempt amount, the ITBIS total and the total.

export interface TotalsView {
  section: HTMLElement;
  /** `tipo`'s rates tell whether an ITBIS total of zero is shown. */
  show(totals: DocumentTotals, tipo: EcfTipo): void;
}

const fact = (label: string, field: string, value: Dec | null, strong = false): HTMLElement[] => value === null ? [] : [
  h('dt', null, label),
  h('dd', { 'data-field': field, 'data-value': formatDec(value) }, strong ? h('strong', null, money(formatDec(value))) : money(formatDec(value))),
];

export function totalsView(): TotalsView {
  const totalsList = h('dl', { class: 'facts totals', 'data-list': 'invoice-totals' });
  const section = h('section', { class: 'card', 'aria-labelledby': 'inv-totals' }, h('h2', { id: 'inv-totals' }, 'Totales'), totalsList);
  return {
    section,
    show: (totals, tipo) => {
      const tf = TYPE_FORMS[tipo];
      totalsList.replaceChildren(
        ...totals.byRate.flatMap((r) => [
          ...fact(`Gravado ${RATE_LABELS[r.indicator].replace('ITBIS ', '')}`, `gravado-${r.indicator}`, r.base),
          ...fact(RATE_LABELS[r.indicator], `itbis-${r.indicator}`, r.itbis),
        ]),
        ...fact('Exento', 'exento', totals.exento),
        ...fact('ITBIS total', 'itbis-total', totals.totalItbis ?? (tf.rates.some((x) => x !== 4) ? { units: 0, scale: 2 } : null)),
        ...fact('Total', 'total', totals.total, true),
      );
    },
  };
}
