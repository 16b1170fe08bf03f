import { ECF_TIPOS, type EcfTipo } from '../ecf/ecf-types.ts';
import { ecfSchema } from '../ecf/schema/ecf-schema.ts';
import { isGroup, type GroupElement, type SchemaElement, type SimpleTypeDef } from '../ecf/schema/schema-types.ts';
import { INPUT_POLICY } from '../ecf/validation/input-policy.ts';
import { xsdPatternToRegExp } from '../ecf/validation/xsd-regex.ts';
import type { Schema } from '../http/openapi.ts';
import { METADATA_MAX_KEYS, REFERENCIA_MAX } from './erp-reference.ts';

// The emit body of each e-CF type as JSON Schema, built at run time from the tables the one
// generator (scripts/generate-ecf-schema.ts) writes from DGII's XSDs: the same trees and facets
// validation walks, so the OpenAPI document cannot drift from what the service accepts. DGII's
// XSDs carry no xs:documentation, so descriptions name the element, its XSD type and facets.
// The JSON mirrors the XML: a repeating element may be one value or an array; numeric leaves
// and code lists take a JSON number or a string; FechaHoraFirma and Signature are the service's.

const bodyName = (tipo: EcfTipo): string => `EcfBody${tipo}`;
const ecfName = (tipo: EcfTipo): string => `Ecf${tipo}`;

function facetText(def: SimpleTypeDef): string {
  const parts: string[] = [];
  if (def.minLength !== undefined || def.maxLength !== undefined) parts.push(`length ${def.minLength ?? 0}–${def.maxLength ?? '∞'}`);
  if (def.totalDigits !== undefined) parts.push(`at most ${def.totalDigits} digits`);
  if (def.fractionDigits !== undefined) parts.push(`at most ${def.fractionDigits} decimals`);
  if (def.minInclusive !== undefined) parts.push(`≥ ${def.minInclusive}`);
  if (def.minExclusive !== undefined) parts.push(`> ${def.minExclusive}`);
  if (def.maxInclusive !== undefined) parts.push(`≤ ${def.maxInclusive}`);
  if (def.maxExclusive !== undefined) parts.push(`< ${def.maxExclusive}`);
  if (def.patterns !== undefined) parts.push(`XSD pattern ${def.patterns.join(' | ')}`);
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}

/** The XSD patterns as one ECMA-262 regular expression with the XSD's meaning (anchored). */
function pattern(def: SimpleTypeDef): string | undefined {
  if (def.patterns === undefined) return undefined;
  const sources = def.patterns.map((p) => xsdPatternToRegExp(p).source);
  return sources.length === 1 ? sources[0] : sources.map((s) => `(?:${s})`).join('|');
}

function numberOrNull(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}

function leafSchema(name: string, typeName: string, def: SimpleTypeDef, tipo: EcfTipo): Schema {
  const description = `${name}: XSD type ${typeName} (${def.base}${facetText(def)}).`;
  if (name === 'TipoeCF') return { description: `${description} ${tipo} in this schema.`, enum: [tipo, String(tipo)] };
  if (def.enumeration !== undefined) {
    // Code lists take the code as a string or, when it is numeric, as a JSON number.
    const numbers = def.enumeration.filter((v) => /^-?\d+(\.\d+)?$/.test(v)).map(Number);
    return { description, enum: [...def.enumeration, ...new Set(numbers)] };
  }
  const regex = pattern(def);
  const text: Record<string, unknown> = {
    type: 'string',
    ...(def.minLength === undefined ? {} : { minLength: def.minLength }),
    ...(def.maxLength === undefined ? {} : { maxLength: def.maxLength }),
    ...(regex === undefined ? {} : { pattern: regex }),
  };
  if (def.base === 'string') return { description, ...text };
  const bounds = {
    ...(def.minInclusive === undefined ? {} : { minimum: numberOrNull(def.minInclusive) }),
    ...(def.minExclusive === undefined ? {} : { exclusiveMinimum: numberOrNull(def.minExclusive) }),
    ...(def.maxInclusive === undefined ? {} : { maximum: numberOrNull(def.maxInclusive) }),
    ...(def.maxExclusive === undefined ? {} : { exclusiveMaximum: numberOrNull(def.maxExclusive) }),
  };
  // A number keeps its value exactly only as a string ("1180.00"); both are accepted.
  return { description, anyOf: [{ type: def.base === 'integer' ? 'integer' : 'number', ...bounds }, text] };
}

function occurrences(element: SchemaElement, one: Schema): Schema {
  if (element.max === 1) return one;
  const many = { type: 'array', items: one, minItems: Math.max(element.min, 1), maxItems: element.max };
  return { description: `${element.name}: ${element.min}–${element.max} entries, as an array (or one entry alone).`, anyOf: [many, one] };
}

function groupSchema(element: GroupElement, path: string, tipo: EcfTipo, types: Readonly<Record<string, SimpleTypeDef>>): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const child of element.children) {
    const childPath = `${path}.${child.name}`;
    const policy = INPUT_POLICY[childPath];
    if (policy?.kind === 'refused') continue;
    if (child.min > 0 && policy?.kind !== 'optional') required.push(child.name);
    properties[child.name] = occurrences(child, elementSchema(child, childPath, tipo, types));
  }
  return {
    type: 'object',
    description: `${element.name} (e-CF type ${tipo}).`,
    additionalProperties: false,
    ...(required.length === 0 ? {} : { required }),
    properties,
  };
}

function elementSchema(element: SchemaElement, path: string, tipo: EcfTipo, types: Readonly<Record<string, SimpleTypeDef>>): Schema {
  if (isGroup(element)) return groupSchema(element, path, tipo, types);
  const def = types[element.type];
  if (def === undefined) throw new Error(`schema table has no simple type ${element.type}`);
  return leafSchema(element.name, element.type, def, tipo);
}

/** The ERP fields next to ECF in every emit body. */
export const ERP_PROPERTIES: Record<string, Schema> = {
  referencia: {
    type: 'string', minLength: 1, maxLength: REFERENCIA_MAX, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]+$',
    description: 'The ERP\'s own id of this document (order or invoice number), 1–100 printable characters. Stored and returned, a filter of GET /{env}/documentos-ecf, and sent in ecf.status_update under `erp`; never part of the e-CF XML.',
  },
  metadata: {
    type: 'object', maxProperties: METADATA_MAX_KEYS, additionalProperties: { type: 'string' },
    description: 'Free string pairs for the ERP: at most 20 keys, 4 KiB of keys and values in all (UTF-8). Stored and returned, sent in ecf.status_update under `erp`; never part of the e-CF XML.',
  },
};

/** Components: EcfBody (any of the types), EcfBody31…47 and Ecf31…47. */
export function ecfBodySchemas(): Record<string, Schema> {
  const out: Record<string, Schema> = {
    EcfBody: {
      description: 'The e-CF as JSON mirroring DGII\'s XML: element names unchanged, repeated elements as arrays, amounts as numbers or numeric strings, dates dd-MM-yyyy; one schema per e-CF type (ECF.Encabezado.IdDoc.TipoeCF selects it). eNCF may be omitted: the next number of the tenant\'s sequence for that type and environment is assigned. FechaHoraFirma and the signature are added by the service. `referencia` and `metadata` are the ERP\'s and never reach the XML.',
      anyOf: ECF_TIPOS.map((tipo) => ({ $ref: `#/components/schemas/${bodyName(tipo)}` })),
    },
  };
  for (const tipo of ECF_TIPOS) {
    const schema = ecfSchema(tipo);
    out[ecfName(tipo)] = { ...groupSchema(schema.root, 'ECF', tipo, schema.simpleTypes), description: `The ECF element of an e-CF of type ${tipo}, from DGII's ecf-${tipo}.xsd.` };
    out[bodyName(tipo)] = {
      type: 'object',
      description: `The emit body of an e-CF of type ${tipo}.`,
      additionalProperties: false,
      required: ['ECF'],
      properties: { ECF: { $ref: `#/components/schemas/${ecfName(tipo)}` }, ...ERP_PROPERTIES },
    };
  }
  return out;
}
