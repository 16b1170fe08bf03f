// DGII's arithmetic of an e-CF's amounts, in one place: the validation's rules compare what a
// body says with these results, and the dashboard's invoice form computes its totals with the
// very same functions (it loads this file and decimal.ts as they are; neither imports anything
// else, nor anything of Node).
import { add, divide, dec, mul, negate, roundHalfUp, ZERO, type Dec } from './decimal.ts';

/** ITBIS rate (percent) of each IndicadorFacturacion that carries one. */
export const ITBIS_RATES = { 1: '18', 2: '16', 3: '0' } as const;
export type TaxedIndicator = keyof typeof ITBIS_RATES;
/** IndicadorFacturacion: 0 no facturable, 1–3 ITBIS 18/16/0 %, 4 exento. */
export type Indicator = 0 | TaxedIndicator | 4;

/** CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto, exact (MontoItem before rounding). */
export function lineAmount(quantity: Dec, price: Dec, discount: Dec = ZERO, surcharge: Dec = ZERO): Dec {
  return add(mul(quantity, price), negate(discount), surcharge);
}

/** MontoItem as it is written: the line's amount rounded half up to cents. */
export function lineMonto(quantity: Dec, price: Dec, discount: Dec = ZERO, surcharge: Dec = ZERO): Dec {
  return roundHalfUp(lineAmount(quantity, price, discount, surcharge), 2);
}

/**
 * The taxable base (MontoGravadoI1–3) of lines adding up to `linesSum`: the sum itself, or, when
 * the amounts include ITBIS (IndicadorMontoGravado 1), the sum divided by 1 + rate, to cents.
 */
export function taxableBase(linesSum: Dec, ratePercent: string, itbisIncluded: boolean): Dec {
  return itbisIncluded ? divide(linesSum, add(dec('1'), divide(dec(ratePercent), dec('100'), 4)), 2) : linesSum;
}

/** The ITBIS of a taxable base (TotalITBIS1–3): base × rate / 100, rounded half up to cents. */
export function itbisOf(taxable: Dec, ratePercent: string): Dec {
  return roundHalfUp(divide(mul(taxable, dec(ratePercent)), dec('100'), 6), 2);
}

export interface TotalsLine {
  readonly indicator: Indicator;
  /** MontoItem, as written on the line. */
  readonly amount: Dec;
}

/** The Totales of a document without global discounts, ISC or retentions, element by element. */
export interface DocumentTotals {
  readonly byRate: readonly { readonly indicator: TaxedIndicator; readonly rate: string; readonly base: Dec; readonly itbis: Dec }[];
  readonly gravadoTotal: Dec | null;
  readonly totalItbis: Dec | null;
  readonly exento: Dec | null;
  readonly noFacturable: Dec | null;
  readonly total: Dec;
}

export function documentTotals(lines: readonly TotalsLine[], itbisIncluded = false): DocumentTotals {
  const sumOf = (indicator: Indicator): Dec | null => {
    const amounts = lines.filter((l) => l.indicator === indicator).map((l) => l.amount);
    return amounts.length === 0 ? null : add(...amounts);
  };
  const byRate = ([1, 2, 3] as const).flatMap((indicator) => {
    const sum = sumOf(indicator);
    if (sum === null) return [];
    const rate = ITBIS_RATES[indicator];
    const base = taxableBase(sum, rate, itbisIncluded);
    return [{ indicator, rate, base, itbis: itbisOf(base, rate) }];
  });
  const gravadoTotal = byRate.length === 0 ? null : add(...byRate.map((r) => r.base));
  const totalItbis = byRate.length === 0 ? null : add(...byRate.map((r) => r.itbis));
  const exento = sumOf(4);
  const total = add(gravadoTotal ?? ZERO, totalItbis ?? ZERO, exento ?? ZERO);
  return { byRate, gravadoTotal, totalItbis, exento, noFacturable: sumOf(0), total };
}
