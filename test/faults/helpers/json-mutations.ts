import type { Prng } from './prng.ts';

// JSON bodies for the malformed-input generator: a plausible value built from an OpenAPI
// schema (or a valid e-CF), then one node replaced by something hostile. Some hostile
// values cannot be JS values at all (numbers beyond double, lone surrogates, duplicate
// keys, nesting deeper than the stack), so a Raw node carries JSON text verbatim.

export class Raw {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

export type Json = null | boolean | number | string | Raw | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

const HUGE_NUMBERS = [
  '1e999', '-1e999', '1E+308', '4.9e-324', '1e-400', '-0', '0e0', '9007199254740993', '18446744073709551616',
  '123456789012345678901234567890.123456789', '0.000000000000000000000000000001', '99999999999999999999.99', '-1', '1.005',
] as const;

const STRINGS = [
  '', ' ', '😀🇩🇴', 'مرحبا بالعالم', '\u202eevil\u202c', 'e\u0301\u0301\u0301', '\u0000', '\ufeffBOM', '𝕏'.repeat(200), 'ñandú',
  '\u2028\u2029', '<script>alert(1)</script>', "' OR 1=1 --", '%00%ff', '../../../../etc/passwd', '${jndi:ldap://x/a}',
  '{{7*7}}', '\r\nX-Injected: 1', 'null', 'true', '1e999', 'A'.repeat(70_000), '\\', '"', '\t\n\r\b\f',
] as const;

// JSON text no JS value serializes to.
const RAW_TEXT = ['"\\ud800"', '"\\udfff\\ud800x"', '"\\u0000\\u001f"', '"\\uDBFF\\uDFFF"', '"\\u00e9\\u0301"'] as const;

const WRONG_TYPES: readonly Json[] = [0, -1, 1.5, true, false, null, [], {}, [1, 'a', null], { a: { b: [] } }, 'texto', '0'];

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', ''] as const;

function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  const ref = schema.$ref;
  if (typeof ref === 'string') return resolve(components[ref.split('/').pop() ?? ''] ?? {}, components);
  return schema;
}

/** A plausible value of `schema` (the generator only needs a realistic starting point). */
export function exampleFor(rng: Prng, raw: Schema, components: Record<string, Schema>, depth = 0): Json {
  const schema = resolve(raw, components);
  const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (variants !== undefined && variants.length > 0) return exampleFor(rng, rng.pick(variants), components, depth + 1);
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return rng.pick(schema.enum as Json[]);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type as string[]) : schema.type;
  switch (type) {
    case 'object': {
      const out: { [key: string]: Json } = {};
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      for (const [name, sub] of Object.entries(properties)) if (depth < 6) out[name] = exampleFor(rng, sub, components, depth + 1);
      return out;
    }
    case 'array':
      return depth < 6 ? [exampleFor(rng, (schema.items ?? {}) as Schema, components, depth + 1)] : [];
    case 'integer':
      return rng.int(1000);
    case 'number':
      return rng.int(100_000) / 100;
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'string':
      if (schema.format === 'email') return `fuzz${rng.int(1e9)}@example.com`;
      if (schema.format === 'uri') return 'https://example.com/hooks/ecf';
      if (schema.format === 'uuid') return '3b241101-e2bb-4255-8caf-4136c566a962';
      if (typeof schema.pattern === 'string' && schema.pattern.includes('\\d')) return String(100_000_000 + rng.int(899_999_999));
      return 'x'.repeat(Math.max(Number(schema.minLength ?? 0), 12));
    default:
      return 'valor';
  }
}

/** Nesting `depth` levels deep, as text (too deep for a recursive serializer). */
export function deepJson(rng: Prng, depth: number): Raw {
  return rng.chance(0.5) ? new Raw('['.repeat(depth) + ']'.repeat(depth)) : new Raw('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

/** Something hostile to put where a value was. */
export function hostileValue(rng: Prng): Json {
  return rng.weighted<() => Json>([
    [4, () => structuredClone(rng.pick(WRONG_TYPES))],
    [3, () => new Raw(rng.pick(HUGE_NUMBERS))],
    [3, () => rng.pick(STRINGS)],
    [2, () => new Raw(rng.pick(RAW_TEXT))],
    [1, () => deepJson(rng, 10 + rng.int(100))],
    [1, () => Object.fromEntries(PROTO_KEYS.map((k) => [k, { polluted: true }]))],
    [1, () => Array.from({ length: 2_000 }, (_, i) => i)],
  ])();
}

function nodes(value: Json, out: { parent: Json[] | { [key: string]: Json }; key: string | number }[] = []) {
  if (value instanceof Raw || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) value.forEach((v, i) => (out.push({ parent: value, key: i }), nodes(v, out)));
  else for (const [k, v] of Object.entries(value)) (out.push({ parent: value, key: k }), nodes(v, out));
  return out;
}

/** `value` (changed in place) with one node replaced, removed, or joined by strange keys. */
export function mutate(rng: Prng, value: Json): Json {
  const all = nodes(value);
  if (all.length === 0 || rng.chance(0.08)) return hostileValue(rng);
  const { parent, key } = rng.pick(all);
  const action = rng.int(10);
  if (Array.isArray(parent)) {
    if (action === 0) parent.splice(Number(key), 1);
    else parent[Number(key)] = hostileValue(rng);
  } else if (action === 0) {
    delete parent[key as string];
  } else if (action === 1) {
    // defineProperty: assigning __proto__ would change the prototype instead of adding a key.
    Object.defineProperty(parent, rng.pick(PROTO_KEYS), { value: hostileValue(rng), enumerable: true, writable: true, configurable: true });
  } else {
    parent[key as string] = hostileValue(rng);
  }
  return value;
}

/** JSON text of `value`, with Raw nodes verbatim; `duplicateKeys` repeats each object's first key. */
export function serialize(value: Json, duplicateKeys = false): string {
  if (value instanceof Raw) return value.text;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => serialize(v, duplicateKeys)).join(',')}]`;
  const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${serialize(v, duplicateKeys)}`);
  if (duplicateKeys && entries.length > 0) entries.push(entries[0] as string);
  return `{${entries.join(',')}}`;
}
