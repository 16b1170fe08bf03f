// Turns the parsed e-CF XSDs into the e-CF part of schemas.data.ts. Identical simple types and
// identical sub-trees are written once and shared, so the table stays reviewable.
import { isGroup } from './schema-types.ts';
import type { GroupElement, SchemaElement, SimpleTypeDef, XsdSchema } from './schema-types.ts';

const FACET_ORDER = [
  'base', 'enumeration', 'patterns', 'minLength', 'maxLength', 'totalDigits', 'fractionDigits',
  'minInclusive', 'maxInclusive', 'minExclusive', 'maxExclusive',
] as const;

const WIDTH = 110;

export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function renderList(items: readonly string[], indent: string): string {
  const quoted = items.map(quote);
  const oneLine = `[${quoted.join(', ')}]`;
  if (oneLine.length + indent.length < WIDTH) return oneLine;
  const lines: string[] = [];
  let line = '';
  for (const item of quoted) {
    if (line !== '' && indent.length + 2 + line.length + item.length + 2 > WIDTH) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += `${item}, `;
  }
  if (line !== '') lines.push(line.trimEnd());
  return `[\n${lines.map((l) => `${indent}  ${l}`).join('\n')}\n${indent}]`;
}

export function renderSimpleType(def: SimpleTypeDef, indent: string): string {
  const record = def as unknown as Readonly<Record<string, unknown>>;
  const parts = FACET_ORDER.filter((key) => record[key] !== undefined).map((key) => {
    const value = record[key];
    if (Array.isArray(value)) return `${key}: ${renderList(value as string[], indent)}`;
    return `${key}: ${typeof value === 'number' ? String(value) : quote(String(value))}`;
  });
  return `{ ${parts.join(', ')} }`;
}

function canonical(value: SimpleTypeDef | SchemaElement): string {
  return JSON.stringify(value);
}

function canonicalSimpleType(def: SimpleTypeDef): SimpleTypeDef {
  const record = def as unknown as Readonly<Record<string, unknown>>;
  const ordered: Record<string, unknown> = {};
  for (const key of FACET_ORDER) if (record[key] !== undefined) ordered[key] = record[key];
  return ordered as unknown as SimpleTypeDef;
}

/** The e-CF tables' declarations (SIMPLE_TYPES, shared sub-trees, ECF_XSD_SCHEMAS). */
export function renderEcfTables(schemas: ReadonlyMap<number, XsdSchema>): string[] {
  const tipos = [...schemas.keys()].sort((a, b) => a - b);
  const schemaOf = (tipo: number): XsdSchema => schemas.get(tipo) as XsdSchema;

  // Simple types: the variant most XSDs share is "common"; others become per-type overrides.
  const variants = new Map<string, Map<string, { def: SimpleTypeDef; tipos: number[] }>>();
  for (const tipo of tipos) {
    for (const [name, raw] of Object.entries(schemaOf(tipo).simpleTypes)) {
      const def = canonicalSimpleType(raw);
      const byJson = variants.get(name) ?? new Map<string, { def: SimpleTypeDef; tipos: number[] }>();
      const entry = byJson.get(canonical(def)) ?? { def, tipos: [] };
      entry.tipos.push(tipo);
      byJson.set(canonical(def), entry);
      variants.set(name, byJson);
    }
  }
  const common = new Map<string, SimpleTypeDef>();
  const overrides = new Map<number, Map<string, SimpleTypeDef>>();
  for (const name of [...variants.keys()].sort()) {
    const list = [...(variants.get(name)?.values() ?? [])];
    const winner = list.reduce((best, v) => (v.tipos.length > best.tipos.length ? v : best));
    common.set(name, winner.def);
    for (const v of list) {
      if (v === winner) continue;
      for (const tipo of v.tipos) {
        const map = overrides.get(tipo) ?? new Map<string, SimpleTypeDef>();
        map.set(name, v.def);
        overrides.set(tipo, map);
      }
    }
  }

  // Sub-trees used unchanged by two or more types are hoisted into shared constants.
  const usedBy = new Map<string, Set<number>>();
  const countGroups = (element: SchemaElement, tipo: number): void => {
    if (!isGroup(element)) return;
    const key = canonical(element);
    usedBy.set(key, (usedBy.get(key) ?? new Set<number>()).add(tipo));
    for (const c of element.children) countGroups(c, tipo);
  };
  for (const tipo of tipos) for (const c of schemaOf(tipo).root.children) countGroups(c, tipo);

  const constNames = new Map<string, string>();
  const namesTaken = new Map<string, number>();
  const definitions: string[] = [];
  const renderElement = (element: SchemaElement, indent: string): string => {
    const head = `name: ${quote(element.name)}, min: ${element.min}, max: ${element.max}`;
    if (!isGroup(element)) return `{ ${head}, type: ${quote(element.type)} }`;
    const key = canonical(element);
    const shared = (usedBy.get(key)?.size ?? 0) > 1;
    const renderBody = (bodyIndent: string): string => {
      const items = element.children.map((c) => `${bodyIndent}  ${renderElement(c, `${bodyIndent}  `)},`);
      return `{ ${head}, children: [\n${items.join('\n')}\n${bodyIndent}] }`;
    };
    if (!shared) return renderBody(indent);
    const known = constNames.get(key);
    if (known !== undefined) return known;
    const n = (namesTaken.get(element.name) ?? 0) + 1;
    namesTaken.set(element.name, n);
    const constName = `${element.name}_${n}`;
    constNames.set(key, constName);
    definitions.push(`const ${constName}: GroupElement = ${renderBody('')};`);
    return constName;
  };

  const roots = tipos.map((tipo) => {
    const root: GroupElement = schemaOf(tipo).root;
    const children = root.children.map((c) => `      ${renderElement(c, '      ')},`).join('\n');
    const own = overrides.get(tipo);
    const simple = own === undefined
      ? 'SIMPLE_TYPES'
      : `{\n      ...SIMPLE_TYPES,\n${[...own.entries()]
        .map(([name, def]) => `      ${name}: ${renderSimpleType(def, '      ')},`).join('\n')}\n    }`;
    return `  ${tipo}: {\n    root: { name: 'ECF', min: 1, max: 1, children: [\n${children}\n    ] },\n`
      + `    simpleTypes: ${simple},\n  },`;
  });

  const simpleLines = [...common.entries()].map(([name, def]) => `  ${name}: ${renderSimpleType(def, '  ')},`);
  return [
    'const SIMPLE_TYPES: Readonly<Record<string, SimpleTypeDef>> = {',
    ...simpleLines,
    '};',
    '',
    ...definitions.flatMap((d) => [d, '']),
    'export const ECF_XSD_SCHEMAS: Readonly<Record<EcfTipo, XsdSchema>> = {',
    ...roots,
    '};',
  ];
}
