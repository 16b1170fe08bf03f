// The ten e-CF types: the single source of truth for codes, names and type-level facts
// that sequences, validation and XML building share. Values mirror DGII's XSDs; a test
// checks them against the generated schema table.

export type BuyerRnc = 'required' | 'optional' | 'absent';

export interface EcfTypeInfo {
  /** Spanish name as DGII writes it. */
  readonly name: string;
  /** InformacionReferencia (the e-CF being modified) is mandatory: debit and credit notes. */
  readonly requiresReference: boolean;
  /** IdDoc.FechaVencimientoSecuencia is part of the document (not in types 32 and 34). */
  readonly sequenceExpires: boolean;
  /** Whether Comprador.RNCComprador must, may or cannot appear. */
  readonly buyerRnc: BuyerRnc;
  /** DetallesItems.Item maxOccurs in the XSD. */
  readonly maxItems: number;
}

export const ECF_TYPES = {
  31: { name: 'Factura de Crédito Fiscal Electrónica', requiresReference: false, sequenceExpires: true, buyerRnc: 'required', maxItems: 1000 },
  32: { name: 'Factura de Consumo Electrónica', requiresReference: false, sequenceExpires: false, buyerRnc: 'optional', maxItems: 1000 },
  33: { name: 'Nota de Débito Electrónica', requiresReference: true, sequenceExpires: true, buyerRnc: 'optional', maxItems: 10000 },
  34: { name: 'Nota de Crédito Electrónica', requiresReference: true, sequenceExpires: false, buyerRnc: 'optional', maxItems: 10000 },
  41: { name: 'Compras Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'required', maxItems: 1000 },
  43: { name: 'Gastos Menores Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'absent', maxItems: 1000 },
  44: { name: 'Regímenes Especiales Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'optional', maxItems: 1000 },
  45: { name: 'Gubernamental Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'required', maxItems: 1000 },
  46: { name: 'Comprobante de Exportaciones Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'optional', maxItems: 1000 },
  47: { name: 'Comprobante para Pagos al Exterior Electrónico', requiresReference: false, sequenceExpires: true, buyerRnc: 'absent', maxItems: 1000 },
} as const satisfies Readonly<Record<number, EcfTypeInfo>>;

export type EcfTipo = keyof typeof ECF_TYPES;

export const ECF_TIPOS: readonly EcfTipo[] = Object.keys(ECF_TYPES).map(Number) as EcfTipo[];

export function isEcfTipo(value: number): value is EcfTipo {
  return Object.hasOwn(ECF_TYPES, value);
}
