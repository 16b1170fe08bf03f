// Totales: each taxable/exempt total equals its lines, ITBIS rates and amounts follow DGII's
// rates, and the summary totals add up. Which totals exist comes from the type's schema.
import { add, compare, dec, formatDec, negate, within, ZERO } from '../../decimal.ts';
import { itbisOf, taxableBase } from '../../totals.ts';
import { BILLING_BUCKETS, BILLING_INDICATORS, TOLERANCE, iscInItbisBase } from './tax-tables.ts';
import { read, sumRule } from './sums.ts';
import type { Dec } from '../../decimal.ts';
import type { BillingIndicator } from './tax-tables.ts';
import type { RuleContext, View } from './context.ts';
import type { Rule } from './rule.ts';

const totales = (ctx: RuleContext): View => ctx.root.group('Encabezado').group('Totales');
const globalAdjustments = (ctx: RuleContext): readonly View[] => ctx.root.group('DescuentosORecargos').items('DescuentoORecargo');

/** Norma 10-07 discounts change how the taxable base is computed; those documents skip the base checks. */
function usesNorma1007(ctx: RuleContext): boolean {
  return globalAdjustments(ctx).some((g) => g.text('IndicadorNorma1007') === '1');
}

/** Σ MontoItem of the lines with an indicator, or undefined when some needed value was refused. */
function linesTotal(ctx: RuleContext, indicator: BillingIndicator): { sum: Dec; count: number } | undefined {
  let sum = ZERO;
  let count = 0;
  for (const item of ctx.root.group('DetallesItems').items('Item')) {
    if (item.refused('IndicadorFacturacion')) return undefined;
    if (item.text('IndicadorFacturacion') !== indicator) continue;
    const amount = read(item, 'MontoItem');
    if (amount.kind === 'refused') return undefined;
    count++;
    if (amount.kind === 'value') sum = add(sum, amount.value);
  }
  return { sum, count };
}

function adjustmentsTotal(ctx: RuleContext, indicator: BillingIndicator): { sum: Dec; count: number } | undefined {
  let sum = ZERO;
  let count = 0;
  for (const g of globalAdjustments(ctx)) {
    if (g.refused('IndicadorFacturacionDescuentooRecargo') || g.refused('TipoAjuste')) return undefined;
    if (g.text('IndicadorFacturacionDescuentooRecargo') !== indicator) continue;
    const amount = read(g, 'MontoDescuentooRecargo');
    if (amount.kind === 'refused') return undefined;
    count++;
    if (amount.kind === 'value') sum = add(sum, g.text('TipoAjuste') === 'D' ? negate(amount.value) : amount.value);
  }
  return { sum, count };
}

function bucketRule(indicator: BillingIndicator): Rule {
  const bucket = BILLING_BUCKETS[indicator];
  const totalPath = `Encabezado.Totales.${bucket.total}`;
  return {
    id: `total-${bucket.total}`,
    message: `must equal Σ MontoItem of the lines with IndicadorFacturacion ${indicator} (${bucket.label})`
      + (bucket.itbis !== undefined ? ', divided by (1 + rate) when IndicadorMontoGravado is 1' : '')
      + (bucket.globalAdjustments ? ', − global discounts + global surcharges with that indicator' : '')
      + ' (±0.01)',
    check: (ctx) => {
      if (!ctx.has(totalPath)) return [];
      if (bucket.itbis !== undefined && usesNorma1007(ctx)) return [];
      const lines = linesTotal(ctx, indicator);
      const adjustments = bucket.globalAdjustments ? adjustmentsTotal(ctx, indicator) : { sum: ZERO, count: 0 };
      const target = read(totales(ctx), bucket.total);
      if (lines === undefined || adjustments === undefined || target.kind === 'refused') return [];
      if (ctx.root.group('Encabezado').group('IdDoc').refused('IndicadorMontoGravado')) return [];
      const itbisIncluded = ctx.root.group('Encabezado').group('IdDoc').text('IndicadorMontoGravado') === '1';
      const base = bucket.itbis !== undefined ? taxableBase(lines.sum, bucket.itbis.rate, itbisIncluded) : lines.sum;
      const expected = add(base, adjustments.sum);
      const path = totales(ctx).at(bucket.total);
      if (target.kind === 'absent') {
        return lines.count + adjustments.count > 0
          ? [{ path, detail: `it is missing but ${lines.count} line(s) have IndicadorFacturacion ${indicator}; expected ${formatDec(expected)}` }]
          : [];
      }
      return within(target.value, expected, TOLERANCE)
        ? []
        : [{ path, detail: `expected ${formatDec(expected)}, got ${formatDec(target.value)}` }];
    },
  };
}

function rateRule(indicator: BillingIndicator): Rule | undefined {
  const { total, itbis } = BILLING_BUCKETS[indicator];
  if (itbis === undefined) return undefined;
  const ratePath = `Encabezado.Totales.${itbis.rateElement}`;
  return {
    id: `itbis-rate-${itbis.rateElement}`,
    message: `must be ${itbis.rate}, the ITBIS rate of IndicadorFacturacion ${indicator}`,
    check: (ctx) => {
      const t = totales(ctx);
      if (!ctx.has(ratePath) || t.refused(itbis.rateElement)) return [];
      const rate = t.amount(itbis.rateElement);
      if (rate === undefined) return t.sent(total) ? [{ path: t.at(itbis.rateElement), detail: `it is missing while ${total} is present` }] : [];
      return compare(rate, dec(itbis.rate)) === 0
        ? []
        : [{ path: t.at(itbis.rateElement), detail: `got ${t.text(itbis.rateElement) ?? ''}` }];
    },
  };
}

/** ISC amounts (codes 006–039) that DGII adds to the 18 % base; undefined if one was refused. */
function iscForItbis(ctx: RuleContext): Dec | undefined {
  let sum = ZERO;
  for (const tax of totales(ctx).group('ImpuestosAdicionales').items('ImpuestoAdicional')) {
    if (tax.refused('TipoImpuesto')) return undefined;
    if (!iscInItbisBase(tax.text('TipoImpuesto') ?? '')) continue;
    for (const field of ['MontoImpuestoSelectivoConsumoEspecifico', 'MontoImpuestoSelectivoConsumoAdvalorem']) {
      const r = read(tax, field);
      if (r.kind === 'refused') return undefined;
      if (r.kind === 'value') sum = add(sum, r.value);
    }
  }
  return sum;
}

function itbisAmountRule(indicator: BillingIndicator): Rule | undefined {
  const { total, itbis } = BILLING_BUCKETS[indicator];
  if (itbis === undefined) return undefined;
  const amountPath = `Encabezado.Totales.${itbis.amount}`;
  return {
    id: `itbis-amount-${itbis.amount}`,
    message: `must equal ${total}${indicator === '1' ? ' (+ ISC of codes 006–039)' : ''} × ${itbis.rate} / 100, rounded to 2 decimals (±0.01)`,
    check: (ctx) => {
      const t = totales(ctx);
      if (!ctx.has(amountPath)) return [];
      const base = read(t, total);
      const amount = read(t, itbis.amount);
      const isc = indicator === '1' ? iscForItbis(ctx) : ZERO;
      if (base.kind === 'refused' || amount.kind === 'refused' || isc === undefined) return [];
      if (base.kind === 'absent' && amount.kind === 'absent') return [];
      const taxable = add(base.kind === 'value' ? base.value : ZERO, isc);
      const expected = itbisOf(taxable, itbis.rate);
      if (amount.kind === 'absent') {
        return [{ path: t.at(itbis.amount), detail: `it is missing while ${total} is present; expected ${formatDec(expected)}` }];
      }
      return within(amount.value, expected, TOLERANCE)
        ? []
        : [{ path: t.at(itbis.amount), detail: `expected ${formatDec(expected)}, got ${formatDec(amount.value)}` }];
    },
  };
}

const DOCUMENT_SUMS = [
  sumRule({
    id: 'total-MontoGravadoTotal', scope: 'document', target: 'Encabezado.Totales.MontoGravadoTotal',
    terms: ['Encabezado.Totales.MontoGravadoI1', 'Encabezado.Totales.MontoGravadoI2', 'Encabezado.Totales.MontoGravadoI3'],
    requiredWithTerms: true, message: 'must equal MontoGravadoI1 + MontoGravadoI2 + MontoGravadoI3 (±0.01)',
  }),
  sumRule({
    id: 'total-TotalITBIS', scope: 'document', target: 'Encabezado.Totales.TotalITBIS',
    terms: ['Encabezado.Totales.TotalITBIS1', 'Encabezado.Totales.TotalITBIS2', 'Encabezado.Totales.TotalITBIS3'],
    requiredWithTerms: true, message: 'must equal TotalITBIS1 + TotalITBIS2 + TotalITBIS3 (±0.01)',
  }),
  sumRule({
    id: 'total-MontoImpuestoAdicional', scope: 'document', target: 'Encabezado.Totales.MontoImpuestoAdicional',
    collection: {
      path: 'Encabezado.Totales.ImpuestosAdicionales.ImpuestoAdicional',
      fields: ['MontoImpuestoSelectivoConsumoEspecifico', 'MontoImpuestoSelectivoConsumoAdvalorem', 'OtrosImpuestosAdicionales'],
    },
    requiredWithTerms: true,
    message: 'must equal the sum of the ISC específico, ISC ad valorem and other additional tax amounts in ImpuestosAdicionales (±0.01)',
  }),
  sumRule({
    id: 'total-MontoTotal', scope: 'document', target: 'Encabezado.Totales.MontoTotal',
    terms: ['Encabezado.Totales.MontoGravadoTotal', 'Encabezado.Totales.MontoExento', 'Encabezado.Totales.TotalITBIS', 'Encabezado.Totales.MontoImpuestoAdicional'],
    requiredWithTerms: true, message: 'must equal MontoGravadoTotal + MontoExento + TotalITBIS + MontoImpuestoAdicional (±0.01)',
  }),
  sumRule({
    id: 'total-MontoPeriodo', scope: 'document', target: 'Encabezado.Totales.MontoPeriodo',
    terms: ['Encabezado.Totales.MontoTotal', 'Encabezado.Totales.MontoNoFacturable'],
    requiredWithTerms: false, message: 'must equal MontoTotal + MontoNoFacturable (±0.01)',
  }),
  sumRule({
    id: 'total-ValorPagar', scope: 'document', target: 'Encabezado.Totales.ValorPagar',
    terms: ['Encabezado.Totales.MontoTotal', '-Encabezado.Totales.MontoAvancePago', 'Encabezado.Totales.SaldoAnterior'],
    requiredWithTerms: false, skip: usesNorma1007,
    message: 'must equal MontoTotal − MontoAvancePago + SaldoAnterior (±0.01)',
  }),
  sumRule({
    id: 'total-TotalITBISRetenido', scope: 'document', target: 'Encabezado.Totales.TotalITBISRetenido',
    collection: { path: 'DetallesItems.Item', fields: ['Retencion.MontoITBISRetenido'] },
    requiredWithTerms: true, message: 'must equal the sum of the lines\' Retencion.MontoITBISRetenido (±0.01)',
  }),
  sumRule({
    id: 'total-TotalISRRetencion', scope: 'document', target: 'Encabezado.Totales.TotalISRRetencion',
    collection: { path: 'DetallesItems.Item', fields: ['Retencion.MontoISRRetenido'] },
    requiredWithTerms: true, message: 'must equal the sum of the lines\' Retencion.MontoISRRetenido (±0.01)',
  }),
];

const defined = <T>(value: T | undefined): value is T => value !== undefined;

export const TOTAL_RULES: readonly Rule[] = [
  ...BILLING_INDICATORS.map(bucketRule),
  ...BILLING_INDICATORS.map(rateRule).filter(defined),
  ...BILLING_INDICATORS.map(itbisAmountRule).filter(defined),
  ...DOCUMENT_SUMS,
];
