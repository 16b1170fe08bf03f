import { compare, formatDec, parseDecimal, ZERO, type Dec } from '../../ecf/decimal.ts';
import { ECF_TYPES, type EcfTipo } from '../../ecf/ecf-types.ts';
import { documentTotals, lineMonto, type DocumentTotals, type Indicator } from '../../ecf/totals.ts';

// What the "Nueva factura" form turns into: the same `{ ECF: … }` body an ERP posts to
// POST /{env}/documentos-ecf, its amounts computed by src/ecf/totals.ts, the module the server's
// validation judges them with. Which parts each type has follows DGII's XSDs.

/** The types offered first, and those under "Otros tipos". */
export const MAIN_TIPOS = [31, 32, 33, 34] as const satisfies readonly EcfTipo[];
export const OTHER_TIPOS = [41, 43, 44, 45, 46, 47] as const satisfies readonly EcfTipo[];

export type BuyerKind = 'rnc-required' | 'rnc-optional' | 'foreign' | 'none';

interface TypeForm {
  buyer: BuyerKind;
  /** TipoPago only, or with TerminoPago and the form of payment (TablaFormasPago). */
  payment: 'type' | 'full';
  /** IdDoc.TipoIngresos is part of the type. */
  income: boolean;
  /** IdDoc.IndicadorMontoGravado is part of the type (always 0 here: prices before ITBIS). */
  gravadoIndicator: boolean;
  /** The IndicadorFacturacion values whose totals the type's Totales has. */
  rates: readonly Indicator[];
  /** Lines carry Retencion (the buyer withholds): types 41 and 47. */
  retention: boolean;
  email: boolean;
}

const TAXED: readonly Indicator[] = [1, 2, 4];

/** Types whose XSD requires the Comprador element even when none of its parts is known (a consumer's 32): sent empty. */
const COMPRADOR_REQUIRED: ReadonlySet<EcfTipo> = new Set([31, 32, 41, 44, 45, 46]);

export const TYPE_FORMS: Readonly<Record<EcfTipo, TypeForm>> = {
  31: { buyer: 'rnc-required', payment: 'full', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
  32: { buyer: 'rnc-optional', payment: 'full', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
  33: { buyer: 'rnc-optional', payment: 'full', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
  34: { buyer: 'rnc-optional', payment: 'type', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
  41: { buyer: 'rnc-required', payment: 'full', income: false, gravadoIndicator: true, rates: TAXED, retention: true, email: true },
  43: { buyer: 'none', payment: 'type', income: false, gravadoIndicator: false, rates: [4], retention: false, email: false },
  44: { buyer: 'rnc-optional', payment: 'full', income: true, gravadoIndicator: false, rates: [4], retention: false, email: true },
  45: { buyer: 'rnc-required', payment: 'full', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
  46: { buyer: 'foreign', payment: 'full', income: true, gravadoIndicator: false, rates: [3], retention: false, email: true },
  47: { buyer: 'foreign', payment: 'full', income: false, gravadoIndicator: false, rates: [4], retention: true, email: false },
};

export const RATE_LABELS: Readonly<Record<Indicator, string>> = { 0: 'No facturable', 1: 'ITBIS 18 %', 2: 'ITBIS 16 %', 3: 'ITBIS 0 %', 4: 'Exento' };

export interface LineInput {
  description: string;
  quantity: string;
  price: string;
  indicator: Indicator;
  /** 1 bien, 2 servicio. */
  kind: '1' | '2';
  discount: string;
}

export interface InvoiceInput {
  tipo: EcfTipo;
  emisor: Readonly<Record<string, unknown>>;
  /** dd-MM-yyyy */
  fechaEmision: string;
  /** dd-MM-yyyy or '' (the registered range gives it). */
  vencimientoSecuencia: string;
  buyer: { id: string; name: string; email: string };
  tipoIngresos: string;
  tipoPago: string;
  terminoPago: string;
  formaPago: string;
  /** dd-MM-yyyy or ''. */
  fechaLimitePago: string;
  reference: { encf: string; fecha: string; codigo: string; razon: string } | null;
  lines: readonly LineInput[];
}

/** A typed amount: digits with an optional decimal point (commas as thousands are dropped); null when empty or not a number. */
export function amountOf(text: string): Dec | null {
  const t = text.trim().replace(/,/g, '');
  if (t === '' || !/^\d+(\.\d+)?$/.test(t)) return null;
  return parseDecimal(t) ?? null;
}

export interface ComputedLine {
  monto: Dec | null;
}

/** Each line's MontoItem (null while its quantity or price is not a number) and the document's totals over the complete lines. */
export function compute(lines: readonly LineInput[]): { lines: ComputedLine[]; totals: DocumentTotals } {
  const computed = lines.map((l): ComputedLine => {
    const q = amountOf(l.quantity);
    const p = amountOf(l.price);
    const d = l.discount.trim() === '' ? undefined : amountOf(l.discount);
    return { monto: q === null || p === null || d === null ? null : lineMonto(q, p, d) };
  });
  const complete = computed.flatMap((c, i) => (c.monto === null ? [] : [{ indicator: (lines[i] as LineInput).indicator, amount: c.monto }]));
  return { lines: computed, totals: documentTotals(complete) };
}

const money = (d: Dec): string => formatDec(d, 2);
const plain = (text: string): string => text.trim().replace(/,/g, '');

/** DGII's IndicadorNotaCredito: 1 when the note comes more than 30 days after the document it modifies. */
function creditNoteIndicator(fechaModificado: string, fechaEmision: string): 0 | 1 {
  const day = (s: string): number => {
    const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(s);
    return m === null ? Number.NaN : Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]));
  };
  const days = (day(fechaEmision) - day(fechaModificado)) / 86_400_000;
  return days > 30 ? 1 : 0;
}

/** The emit body; amounts are computed here, never typed. */
export function invoiceBody(input: InvoiceInput): { ECF: Record<string, unknown> } {
  const form = TYPE_FORMS[input.tipo];
  const { lines: computed, totals } = compute(input.lines);
  const idDoc: Record<string, unknown> = { TipoeCF: input.tipo };
  if (ECF_TYPES[input.tipo].sequenceExpires && input.vencimientoSecuencia !== '') idDoc.FechaVencimientoSecuencia = input.vencimientoSecuencia;
  if (input.tipo === 34 && input.reference !== null) idDoc.IndicadorNotaCredito = creditNoteIndicator(input.reference.fecha, input.fechaEmision);
  if (form.gravadoIndicator) idDoc.IndicadorMontoGravado = 0;
  if (form.income) idDoc.TipoIngresos = input.tipoIngresos;
  idDoc.TipoPago = Number(input.tipoPago);
  if (input.fechaLimitePago !== '' && input.tipo !== 43) idDoc.FechaLimitePago = input.fechaLimitePago; // 43 has none
  if (form.payment === 'full') {
    if (input.terminoPago.trim() !== '') idDoc.TerminoPago = input.terminoPago.trim();
    if (input.formaPago !== '') idDoc.TablaFormasPago = { FormaDePago: [{ FormaPago: Number(input.formaPago), MontoPago: money(totals.total) }] };
  }

  const buyer: Record<string, unknown> = {};
  const id = input.buyer.id.trim();
  if (form.buyer === 'foreign') {
    if (id !== '') buyer.IdentificadorExtranjero = id;
  } else if (form.buyer !== 'none' && id !== '') {
    buyer.RNCComprador = id;
  }
  if (form.buyer !== 'none') {
    if (input.buyer.name.trim() !== '') buyer.RazonSocialComprador = input.buyer.name.trim();
    if (form.email && input.buyer.email.trim() !== '') buyer.CorreoComprador = input.buyer.email.trim();
  }

  const totales: Record<string, unknown> = {};
  if (totals.gravadoTotal !== null) totales.MontoGravadoTotal = money(totals.gravadoTotal);
  for (const r of totals.byRate) totales[`MontoGravadoI${r.indicator}`] = money(r.base);
  if (totals.exento !== null) totales.MontoExento = money(totals.exento);
  for (const r of totals.byRate) totales[`ITBIS${r.indicator}`] = Number(r.rate);
  if (totals.totalItbis !== null) totales.TotalITBIS = money(totals.totalItbis);
  for (const r of totals.byRate) totales[`TotalITBIS${r.indicator}`] = money(r.itbis);
  totales.MontoTotal = money(totals.total);

  const items = input.lines.map((l, i) => {
    const monto = computed[i]?.monto;
    const discount = l.discount.trim() === '' ? null : amountOf(l.discount);
    const item: Record<string, unknown> = {
      NumeroLinea: i + 1,
      IndicadorFacturacion: l.indicator,
      ...(form.retention ? { Retencion: { IndicadorAgenteRetencionoPercepcion: 1 } } : {}),
      NombreItem: l.description.trim(),
      IndicadorBienoServicio: Number(l.kind),
      CantidadItem: plain(l.quantity),
      PrecioUnitarioItem: plain(l.price),
    };
    if (discount !== null && compare(discount, ZERO) !== 0) {
      item.DescuentoMonto = money(discount);
      item.TablaSubDescuento = { SubDescuento: [{ TipoSubDescuento: '$', MontoSubDescuento: money(discount) }] };
    }
    // An incomplete line is sent as typed: the server names the field that is wrong.
    item.MontoItem = monto === null || monto === undefined ? '' : money(monto);
    return item;
  });

  const ecf: Record<string, unknown> = {
    Encabezado: {
      Version: '1.0',
      IdDoc: idDoc,
      Emisor: { ...input.emisor, FechaEmision: input.fechaEmision },
      ...(Object.keys(buyer).length === 0 && !COMPRADOR_REQUIRED.has(input.tipo) ? {} : { Comprador: buyer }),
      Totales: totales,
    },
    DetallesItems: { Item: items },
  };
  if (input.reference !== null && ECF_TYPES[input.tipo].requiresReference) {
    ecf.InformacionReferencia = {
      NCFModificado: input.reference.encf.trim().toUpperCase(),
      FechaNCFModificado: input.reference.fecha,
      CodigoModificacion: Number(input.reference.codigo),
      ...(input.reference.razon.trim() === '' ? {} : { RazonModificacion: input.reference.razon.trim() }),
    };
  }
  return { ECF: ecf };
}

/** Today in the Dominican Republic (UTC−4 all year), as DGII writes dates. */
export function dominicanToday(now: Date = new Date()): string {
  const d = new Date(now.getTime() - 4 * 3_600_000);
  return `${String(d.getUTCDate()).padStart(2, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${d.getUTCFullYear()}`;
}

/** yyyy-MM-dd (a date input) as dd-MM-yyyy, '' stays ''. */
export function dgiiDay(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m === null ? iso : `${m[3]}-${m[2]}-${m[1]}`;
}

/** dd-MM-yyyy as yyyy-MM-dd for a date input. */
export function isoDay(dgii: string): string {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(dgii);
  return m === null ? '' : `${m[3]}-${m[2]}-${m[1]}`;
}
