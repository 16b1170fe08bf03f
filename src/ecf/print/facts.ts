// What the printed representation shows, read from the stored e-CF (the normalised JSON form of
// its XML, every leaf text) and the signature's facts. DGII's guidance for the printed e-CF
// asks for the issuer, the type's name and eNCF, the dates, the buyer, the lines, the totals
// with their ITBIS, the modified NCF of a note, the security code, the signature's date and time,
// and the timbre's QR code (DGII's Informe Técnico e-CF v1.0, section 17; docs/dgii.md).
import { ECF_TYPES, isEcfTipo } from '../ecf-types.ts';
import type { EcfObject, EcfValue } from '../types.ts';
import { formatDecimal, pesos } from './amounts.ts';
import { PAYMENT_FORMS, PAYMENT_TYPES, placeName, unitAbbreviation } from './dgii-tables.ts';

/** DGII's legend for every printed e-CF ("Modelos ilustrativos de representación impresa"). */
export const PRINTED_LEGEND = 'Este documento es una representación impresa de un comprobante fiscal electrónico';

/**
 * Marks printed large on every page of a document that has no fiscal value: one DGII rejected
 * (Informe Técnico 17: a rejected e-CF's printout cannot support fiscal credit) and one of DGII's
 * test environments (TesteCF, CerteCF).
 */
export const PRINT_MARKS = {
  rechazado: 'RECHAZADO — sin validez fiscal',
  prueba: 'PRUEBA — sin validez fiscal',
} as const;
export type PrintMark = keyof typeof PRINT_MARKS;

export interface PrintSignature {
  /** The six characters of DGII's CodigoSeguridad. */
  readonly securityCode: string;
  /** dd-MM-yyyy HH:mm:ss, as in the signed XML. */
  readonly fechaHoraFirma: string;
  /** DGII's verification URL, drawn as the QR code. */
  readonly timbreUrl: string;
}

export interface PrintedLine {
  readonly quantity: string;
  /** Tabla IV's abbreviation of UnidadMedida ("UND"); empty when the line has none. */
  readonly unit: string;
  readonly name: string;
  readonly description: string;
  readonly unitPrice: string;
  readonly discount: string;
  readonly surcharge: string;
  /** The line's ITBIS rate ("18%"), "E" for exempt, "N/F" for not invoiced. */
  readonly tax: string;
  readonly amount: string;
}

/** A label and its value, e.g. ["RNC", "131880681"]. */
export type Fact = readonly [string, string];

export interface Total {
  readonly label: string;
  readonly value: string;
  /** The amount due: printed in bold. */
  readonly strong: boolean;
}

export interface PrintFacts {
  readonly typeName: string;
  readonly encf: string;
  readonly issuer: { readonly rnc: string; readonly name: string; readonly details: readonly string[] };
  /** FechaEmision, under the issuer (upper left) on a sheet. */
  readonly issueDate: string;
  /** The sequence's expiry date, in the header block (upper right). */
  readonly expiry: string;
  readonly buyer: readonly Fact[];
  /** The modified NCF, its date and the modification code (notes 33/34), then the reason. */
  readonly reference: readonly Fact[];
  /** TipoPago, FechaLimitePago, TerminoPago and each form of payment with its amount. */
  readonly payment: readonly Fact[];
  readonly lines: readonly PrintedLine[];
  /** Discounts and surcharges on the whole document (DescuentosORecargos). */
  readonly adjustments: readonly Fact[];
  /** Totals in print order. */
  readonly totals: readonly Total[];
  readonly signature: PrintSignature;
  /** The texts of the marks, in print order. */
  readonly marks: readonly string[];
  /** The issuer's logo, added to the document (PdfDocument.addImage), with its pixel size. */
  readonly logo?: PrintLogo | null;
}

export interface PrintLogo {
  readonly name: string;
  readonly width: number;
  readonly height: number;
}

// DGII's CodigoModificacion table (Formato e-CF, InformacionReferencia).
const MODIFICATION_CODES: Readonly<Record<string, string>> = {
  1: 'Anula el NCF modificado',
  2: 'Corrige texto del comprobante fiscal modificado',
  3: 'Corrige montos del NCF modificado',
  4: 'Reemplazo NCF emitido en contingencia',
  5: 'Referencia factura consumo electrónica',
};

const DEFAULT_RATES = { 1: '18', 2: '16', 3: '0' } as const;

function child(node: EcfValue | undefined, name: string): EcfValue | undefined {
  return typeof node === 'object' && !Array.isArray(node) ? (node as EcfObject)[name] : undefined;
}

function text(node: EcfValue | undefined, ...path: string[]): string {
  let at = node;
  for (const name of path) at = child(at, name);
  return typeof at === 'string' ? at : '';
}

function list(node: EcfValue | undefined, ...path: string[]): readonly EcfValue[] {
  let at = node;
  for (const name of path) at = child(at, name);
  if (at === undefined) return [];
  return Array.isArray(at) ? at : [at as EcfValue];
}

function facts(entries: readonly (readonly [string, string])[]): Fact[] {
  return entries.filter(([, value]) => value !== '');
}

function rateOf(totales: EcfValue | undefined, indicator: string): string {
  if (indicator === '0') return 'N/F';
  if (indicator === '4') return 'E';
  const key = indicator === '1' || indicator === '2' || indicator === '3' ? indicator : undefined;
  if (key === undefined) return indicator;
  return `${text(totales, `ITBIS${key}`) || DEFAULT_RATES[key]}%`;
}

function place(label: string, code: string): readonly [string, string] {
  return [label, code === '' ? '' : placeName(code)];
}

export function printFacts(tipo: number, ecf: EcfObject, signature: PrintSignature, marks: readonly PrintMark[] = []): PrintFacts {
  const head = ecf.Encabezado;
  const idDoc = child(head, 'IdDoc');
  const emisor = child(head, 'Emisor');
  const comprador = child(head, 'Comprador');
  const totales = child(head, 'Totales');
  const ref = ecf.InformacionReferencia;
  const typeName = isEcfTipo(tipo) ? ECF_TYPES[tipo].name : `e-CF tipo ${tipo}`;

  const phones = list(emisor, 'TablaTelefonoEmisor', 'TelefonoEmisor').filter((p): p is string => typeof p === 'string');
  const details = [
    text(emisor, 'NombreComercial'),
    text(emisor, 'Sucursal') === '' ? '' : `Sucursal: ${text(emisor, 'Sucursal')}`,
    text(emisor, 'DireccionEmisor'),
    text(emisor, 'Municipio') === '' ? '' : `Municipio: ${placeName(text(emisor, 'Municipio'))}`,
    text(emisor, 'Provincia') === '' ? '' : `Provincia: ${placeName(text(emisor, 'Provincia'))}`,
    phones.length === 0 ? '' : `Tel.: ${phones.join(', ')}`,
    text(emisor, 'CorreoEmisor'),
    text(emisor, 'WebSite'),
  ].filter((d) => d !== '');

  const buyerId = text(comprador, 'RNCComprador');
  const buyer = facts([
    ['RNC/Cédula', buyerId],
    ['Identificador extranjero', text(comprador, 'IdentificadorExtranjero')],
    ['Razón social', text(comprador, 'RazonSocialComprador')],
    ['Dirección', text(comprador, 'DireccionComprador')],
    place('Municipio', text(comprador, 'MunicipioComprador')),
    place('Provincia', text(comprador, 'ProvinciaComprador')),
    ['País', text(comprador, 'PaisComprador')],
    ['Correo', text(comprador, 'CorreoComprador')],
  ]);

  const code = text(ref, 'CodigoModificacion');
  const reference = facts([
    ['NCF modificado', text(ref, 'NCFModificado')],
    ['Fecha del NCF modificado', text(ref, 'FechaNCFModificado')],
    ['Código de modificación', code === '' ? '' : `${code}${MODIFICATION_CODES[code] === undefined ? '' : ` - ${MODIFICATION_CODES[code]}`}`],
    ['Razón', text(ref, 'RazonModificacion')],
  ]);

  const lines = list(ecf, 'DetallesItems', 'Item').map((item): PrintedLine => {
    const discount = text(item, 'DescuentoMonto');
    const surcharge = text(item, 'RecargoMonto');
    const unit = text(item, 'UnidadMedida');
    return {
      quantity: formatDecimal(text(item, 'CantidadItem'), 0),
      unit: unit === '' ? '' : unitAbbreviation(unit),
      name: text(item, 'NombreItem'),
      description: text(item, 'DescripcionItem'),
      unitPrice: formatDecimal(text(item, 'PrecioUnitarioItem')),
      discount: discount === '' || Number(discount) === 0 ? '' : `-${formatDecimal(discount)}`,
      surcharge: surcharge === '' || Number(surcharge) === 0 ? '' : `+${formatDecimal(surcharge)}`,
      tax: rateOf(totales, text(item, 'IndicadorFacturacion')),
      amount: formatDecimal(text(item, 'MontoItem')),
    };
  });

  const amount = (label: string, name: string, strong = false): Total => ({ label, value: text(totales, name) === '' ? '' : pesos(text(totales, name)), strong });
  const totals = [
    amount(`Gravado ${rateOf(totales, '1')}`, 'MontoGravadoI1'),
    amount(`Gravado ${rateOf(totales, '2')}`, 'MontoGravadoI2'),
    amount(`Gravado ${rateOf(totales, '3')}`, 'MontoGravadoI3'),
    amount('Exento', 'MontoExento'),
    amount(`ITBIS ${rateOf(totales, '1')}`, 'TotalITBIS1'),
    amount(`ITBIS ${rateOf(totales, '2')}`, 'TotalITBIS2'),
    amount(`ITBIS ${rateOf(totales, '3')}`, 'TotalITBIS3'),
    amount('Total ITBIS', 'TotalITBIS'),
    amount('Impuestos adicionales', 'MontoImpuestoAdicional'),
    amount('Total', 'MontoTotal', true),
    amount('No facturable', 'MontoNoFacturable'),
    amount('ITBIS retenido', 'TotalITBISRetenido'),
    amount('ISR retenido', 'TotalISRRetencion'),
    amount('Valor a pagar', 'ValorPagar', true),
  ].filter((t) => t.value !== '');

  const paymentType = text(idDoc, 'TipoPago');
  const forms = list(idDoc, 'TablaFormasPago', 'FormaDePago').map((form): readonly [string, string] => {
    const code = text(form, 'FormaPago');
    return ['Forma de pago', `${PAYMENT_FORMS[code] ?? code} ${pesos(text(form, 'MontoPago'))}`];
  });
  const payment = facts([
    ['Tipo de pago', PAYMENT_TYPES[paymentType] ?? paymentType],
    ['Fecha límite de pago', text(idDoc, 'FechaLimitePago')],
    ['Término de pago', text(idDoc, 'TerminoPago')],
    ...forms,
  ]);

  const adjustments = list(ecf, 'DescuentosORecargos', 'DescuentoORecargo').map((adj): readonly [string, string] => {
    const surcharge = text(adj, 'TipoAjuste') === 'R';
    const rate = text(adj, 'TipoValor') === '%' && text(adj, 'ValorDescuentooRecargo') !== '' ? ` (${formatDecimal(text(adj, 'ValorDescuentooRecargo'))}%)` : '';
    const label = `${surcharge ? 'Recargo' : 'Descuento'}${text(adj, 'DescripcionDescuentooRecargo') === '' ? '' : ` ${text(adj, 'DescripcionDescuentooRecargo')}`}${rate}`;
    const amount = text(adj, 'MontoDescuentooRecargo');
    return [label, amount === '' ? '' : `${surcharge ? '+' : '-'}${pesos(amount)}`];
  });

  return {
    typeName,
    encf: text(idDoc, 'eNCF'),
    issuer: { rnc: text(emisor, 'RNCEmisor'), name: text(emisor, 'RazonSocialEmisor'), details },
    issueDate: text(emisor, 'FechaEmision'),
    expiry: text(idDoc, 'FechaVencimientoSecuencia'),
    buyer,
    reference,
    payment,
    lines,
    adjustments: facts(adjustments),
    totals,
    signature,
    marks: marks.map((m) => PRINT_MARKS[m]),
  };
}
