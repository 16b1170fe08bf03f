// DGII's ITBIS facts used by the amount rules.
import { dec } from '../../decimal.ts';
import { ITBIS_RATES } from '../../totals.ts';

/** Largest difference accepted between a reported amount and the one computed from its parts. */
export const TOLERANCE = dec('0.01');

export type BillingIndicator = '0' | '1' | '2' | '3' | '4';

export interface BillingBucket {
  /** Totales element that adds up the lines with this IndicadorFacturacion. */
  readonly total: string;
  readonly label: string;
  /** ITBIS rate element, its required value (percent) and the ITBIS amount element. */
  readonly itbis?: { readonly rateElement: string; readonly rate: string; readonly amount: string };
  /** Global DescuentoORecargo entries with this indicator adjust this total. */
  readonly globalAdjustments: boolean;
}

export const BILLING_BUCKETS: Readonly<Record<BillingIndicator, BillingBucket>> = {
  0: { total: 'MontoNoFacturable', label: 'no facturable', globalAdjustments: false },
  1: { total: 'MontoGravadoI1', label: 'ITBIS 18 %', globalAdjustments: true, itbis: { rateElement: 'ITBIS1', rate: ITBIS_RATES[1], amount: 'TotalITBIS1' } },
  2: { total: 'MontoGravadoI2', label: 'ITBIS 16 %', globalAdjustments: true, itbis: { rateElement: 'ITBIS2', rate: ITBIS_RATES[2], amount: 'TotalITBIS2' } },
  3: { total: 'MontoGravadoI3', label: 'ITBIS 0 %', globalAdjustments: true, itbis: { rateElement: 'ITBIS3', rate: ITBIS_RATES[3], amount: 'TotalITBIS3' } },
  4: { total: 'MontoExento', label: 'exento', globalAdjustments: true },
};

export const BILLING_INDICATORS = Object.keys(BILLING_BUCKETS) as BillingIndicator[];

/** Selective consumption taxes (ISC) whose amount is part of the ITBIS 18 % base. */
export function iscInItbisBase(code: string): boolean {
  const n = Number(code);
  return /^\d{3}$/.test(code) && n >= 6 && n <= 39;
}
