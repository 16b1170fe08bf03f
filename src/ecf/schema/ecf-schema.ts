// Access to the generated XSD table: the schema of a type and lookups by element path.
import { ECF_XSD_SCHEMAS } from './schemas.data.ts';
import { isGroup } from './schema-types.ts';
import type { EcfTipo } from '../ecf-types.ts';
import type { SchemaElement, XsdSchema } from './schema-types.ts';

export function ecfSchema(tipo: EcfTipo): XsdSchema {
  return ECF_XSD_SCHEMAS[tipo];
}

const indexes = new Map<EcfTipo, ReadonlyMap<string, SchemaElement>>();
const belowRoot = new Map<EcfTipo, ReadonlySet<string>>();

function index(tipo: EcfTipo): ReadonlyMap<string, SchemaElement> {
  let map = indexes.get(tipo);
  if (map === undefined) {
    const built = new Map<string, SchemaElement>();
    const visit = (element: SchemaElement, path: string): void => {
      built.set(path, element);
      if (isGroup(element)) for (const c of element.children) visit(c, `${path}.${c.name}`);
    };
    visit(ecfSchema(tipo).root, 'ECF');
    map = built;
    indexes.set(tipo, map);
  }
  return map;
}

/** The element at a dotted path without indexes, e.g. "ECF.Encabezado.Totales.ITBIS1". */
export function schemaElement(tipo: EcfTipo, path: string): SchemaElement | undefined {
  return index(tipo).get(path);
}

/**
 * Whether the type's schema has the element at a path from ECF, without the "ECF." (e.g.
 * "Encabezado.Totales.ITBIS1"): what the validation rules ask on every document, so no "ECF."
 * string is built and hashed per question.
 */
export function schemaHasBelowRoot(tipo: EcfTipo, path: string): boolean {
  let paths = belowRoot.get(tipo);
  if (paths === undefined) {
    paths = new Set([...index(tipo).keys()].filter((p) => p.startsWith('ECF.')).map((p) => p.slice('ECF.'.length)));
    belowRoot.set(tipo, paths);
  }
  return paths.has(path);
}
