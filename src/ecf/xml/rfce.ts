// RFCE (Resumen de Factura de Consumo Electrónica): a type 32 under RD$250,000 reaches DGII as
// this summary instead of the full e-CF. Every RFCE element has the same name at the same path
// in the type-32 e-CF, so the summary is the e-CF projected onto rfce-32.xsd's tree, plus
// Encabezado/CodigoSeguridadeCF (the security code of the signed e-CF). Elements the RFCE
// lacks (items, addresses, TasaImpuestoAdicional, ...) are simply not read.
import { serializeXml } from '../../xml/index.ts';
import { compare, parseDecimal } from '../decimal.ts';
import { isGroup } from '../schema/schema-types.ts';
import { buildGroup } from './build-tree.ts';
import { documentSchema } from '../schema/document-schemas.ts';
import { assertBuiltDocumentValid } from './validate-tree.ts';
import type { EcfTipo } from '../ecf-types.ts';
import type { EcfObject, EcfValue } from '../types.ts';
import type { GroupElement, SimpleTypeDef } from '../schema/schema-types.ts';

/** Type 32 documents with MontoTotal below this (RD$) are sent as RFCE. */
export const RFCE_MONTO_LIMITE = '250000';

const LIMITE = parseDecimal(RFCE_MONTO_LIMITE);

export function sentAsRfce(tipo: EcfTipo, montoTotal: string): boolean {
  const monto = parseDecimal(montoTotal);
  if (monto === undefined || LIMITE === undefined) throw new RangeError(`MontoTotal "${montoTotal}" is not a decimal number`);
  return tipo === 32 && compare(monto, LIMITE) < 0;
}

function isObject(value: EcfValue | undefined): value is EcfObject {
  return typeof value === 'object' && !Array.isArray(value);
}

/**
 * The e-CF allows one or two decimals (150.5); RFCE amounts match `[0-9]{1,16}(.[0-9]{2})?`,
 * so a single decimal gets its trailing zero. The value is unchanged.
 */
function fitAmount(text: string, def: SimpleTypeDef | undefined): string {
  return def?.base === 'decimal' && def.fractionDigits === 2 && /^[+-]?\d+\.\d$/.test(text) ? `${text}0` : text;
}

function project(group: GroupElement, source: EcfObject, types: Readonly<Record<string, SimpleTypeDef>>): EcfObject {
  const out: Record<string, EcfValue> = {};
  for (const particle of group.children) {
    const value = source[particle.name];
    if (value === undefined) continue;
    const one = (item: EcfValue): EcfValue | undefined => {
      if (isGroup(particle)) return isObject(item) ? project(particle, item, types) : undefined;
      return typeof item === 'string' ? fitAmount(item, types[particle.type]) : undefined;
    };
    if (Array.isArray(value)) {
      const items = (value as readonly EcfValue[]).map(one).filter((v): v is EcfValue => v !== undefined);
      const first = items[0];
      if (particle.max > 1) out[particle.name] = items;
      else if (first !== undefined) out[particle.name] = first;
    } else {
      const item = one(value);
      if (item !== undefined) out[particle.name] = item;
    }
  }
  return out;
}

/**
 * The unsigned <RFCE> for a normalised type-32 e-CF (validateEcf's `ecf`) and the security code
 * of its signed XML. Throws RangeError when the data cannot make a valid RFCE.
 */
export function buildRfceXml(ecf: EcfObject, codigoSeguridad: string): string {
  const encabezado = ecf.Encabezado;
  const idDoc = isObject(encabezado) ? encabezado.IdDoc : undefined;
  if (!isObject(encabezado) || !isObject(idDoc) || idDoc.TipoeCF !== '32') {
    throw new RangeError('an RFCE summarises a type 32 e-CF (Factura de Consumo Electrónica) only');
  }
  const schema = documentSchema('RFCE');
  const projected = project(schema.root, ecf, schema.simpleTypes);
  const withCode: EcfObject = {
    ...projected,
    Encabezado: { ...(projected.Encabezado as EcfObject), CodigoSeguridadeCF: codigoSeguridad },
  };
  const root = buildGroup(schema.root, withCode, 'RFCE');
  if (root === undefined) throw new Error('internal: the RFCE root came out empty');
  const xml = serializeXml(root, { declaration: true });
  assertBuiltDocumentValid(xml, schema);
  return xml;
}
