// Rules on the detail lines (DetallesItems.Item).
import { formatDec, roundHalfUp, within } from '../../decimal.ts';
import { lineAmount } from '../../totals.ts';
import { BILLING_BUCKETS, BILLING_INDICATORS, TOLERANCE } from './tax-tables.ts';
import { read, sumRule } from './sums.ts';
import type { Finding, RuleContext, View } from './context.ts';
import type { BillingIndicator } from './tax-tables.ts';
import type { Rule } from './rule.ts';

const items = (ctx: RuleContext): readonly View[] => ctx.root.group('DetallesItems').items('Item');

/**
 * The service's own limit (docs/api.md, "Emitting a document"): 1000 lines per document for every type, also
 * for notes 33/34, whose XSDs allow 10,000.
 */
export const MAX_LINES = 1000;

const lineCount: Rule = {
  id: 'line-count',
  message: `must have at most ${MAX_LINES} lines`,
  appliesTo: [33, 34],
  check: (ctx) => {
    const n = items(ctx).length;
    return n > MAX_LINES ? [{ path: 'ECF.DetallesItems.Item', detail: `${n} were sent` }] : [];
  },
};

const lineNumbers: Rule = {
  id: 'line-numbers',
  message: 'must number the lines 1 to n (n = number of lines), each number used once',
  check: (ctx) => {
    const lines = items(ctx);
    const firstUse = new Map<number, number>();
    const findings: Finding[] = [];
    lines.forEach((item, index) => {
      const text = item.text('NumeroLinea');
      if (text === undefined) return;
      const n = Number(text);
      const used = firstUse.get(n);
      if (n > lines.length) findings.push({ path: item.at('NumeroLinea'), detail: `${n} is greater than the ${lines.length} line(s) sent` });
      else if (used !== undefined) findings.push({ path: item.at('NumeroLinea'), detail: `${n} is already used by Item[${used}]` });
      else firstUse.set(n, index);
    });
    return findings;
  },
};

/** (amount, price, discount, surcharge) per line; quantity is always CantidadItem. */
const LINE_AMOUNTS = [
  { id: 'line-amount', amount: 'MontoItem', price: 'PrecioUnitarioItem', discount: 'DescuentoMonto', surcharge: 'RecargoMonto' },
  {
    id: 'line-amount-other-currency',
    amount: 'OtraMonedaDetalle.MontoItemOtraMoneda',
    price: 'OtraMonedaDetalle.PrecioOtraMoneda',
    discount: 'OtraMonedaDetalle.DescuentoOtraMoneda',
    surcharge: 'OtraMonedaDetalle.RecargoOtraMoneda',
  },
] as const;

function lineAmountRule(spec: (typeof LINE_AMOUNTS)[number]): Rule {
  return {
    id: spec.id,
    message: `must equal CantidadItem × ${spec.price.split('.').pop() ?? ''} − ${spec.discount.split('.').pop() ?? ''} + ${spec.surcharge.split('.').pop() ?? ''} (±0.01)`,
    check: (ctx) => {
      const findings: Finding[] = [];
      for (const item of items(ctx)) {
        const amount = read(item, spec.amount);
        const quantity = read(item, 'CantidadItem');
        const price = read(item, spec.price);
        if (amount.kind !== 'value' || quantity.kind !== 'value' || price.kind !== 'value') continue;
        const discount = read(item, spec.discount);
        const surcharge = read(item, spec.surcharge);
        if (discount.kind === 'refused' || surcharge.kind === 'refused') continue;
        const expected = lineAmount(quantity.value, price.value, discount.kind === 'value' ? discount.value : undefined, surcharge.kind === 'value' ? surcharge.value : undefined);
        if (within(amount.value, expected, TOLERANCE)) continue;
        findings.push({ path: `${item.path}.${spec.amount}`, detail: `got ${formatDec(amount.value)}, the line computes to ${formatDec(roundHalfUp(expected, 2))}` });
      }
      return findings;
    },
  };
}

/** Each indicator's total, by path from ECF, written once. */
const TOTAL_PATHS = Object.fromEntries(BILLING_INDICATORS.map((i) => [i, `Encabezado.Totales.${BILLING_BUCKETS[i].total}`])) as Record<BillingIndicator, string>;

const billingIndicatorAvailable: Rule = {
  id: 'line-billing-indicator',
  message: 'is not usable in this e-CF type: its Totales has no element to total these lines',
  check: (ctx) => items(ctx).flatMap((item): Finding[] => {
    const indicator = item.text('IndicadorFacturacion') as BillingIndicator | undefined;
    if (indicator === undefined) return [];
    const bucket = BILLING_BUCKETS[indicator];
    return ctx.has(TOTAL_PATHS[indicator])
      ? []
      : [{ path: item.at('IndicadorFacturacion'), detail: `${indicator} (${bucket.label}) would need Totales.${bucket.total}` }];
  }),
};

export const LINE_RULES: readonly Rule[] = [
  lineCount,
  lineNumbers,
  ...LINE_AMOUNTS.map(lineAmountRule),
  billingIndicatorAvailable,
  sumRule({
    id: 'line-discount-breakdown', scope: 'item', target: 'DescuentoMonto',
    collection: { path: 'TablaSubDescuento.SubDescuento', fields: ['MontoSubDescuento'] },
    requiredWithTerms: true, message: 'must equal the sum of TablaSubDescuento\'s MontoSubDescuento (±0.01)',
  }),
  sumRule({
    id: 'line-surcharge-breakdown', scope: 'item', target: 'RecargoMonto',
    collection: { path: 'TablaSubRecargo.SubRecargo', fields: ['MontoSubRecargo'] },
    requiredWithTerms: true, message: 'must equal the sum of TablaSubRecargo\'s MontoSubRecargo (±0.01)',
  }),
];
