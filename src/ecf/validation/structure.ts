// Walks the JSON body along one e-CF type's XSD element tree: reports missing required
// elements, unknown names, wrong JSON shapes, occurrence limits and leaf facets, and builds
// the normalised copy (keys in XSD order, repeating elements as arrays, leaves as text).
import { checkLeaf } from './facets.ts';
import { INPUT_POLICY, type InputPolicy } from './input-policy.ts';
import { isGroup } from '../schema/schema-types.ts';
import type { GroupElement, SchemaElement, XsdSchema } from '../schema/schema-types.ts';
import type { EcfObject, EcfValue, FieldError } from '../types.ts';

export interface StructureResult {
  readonly ecf: EcfObject | undefined;
  /** Paths (with indexes) of elements present in the JSON whose value was refused. */
  readonly invalid: ReadonlySet<string>;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

const childNameSets = new WeakMap<GroupElement, ReadonlySet<string>>();
function childNames(element: GroupElement): ReadonlySet<string> {
  let names = childNameSets.get(element);
  if (names === undefined) {
    names = new Set(element.children.map((c) => c.name));
    childNameSets.set(element, names);
  }
  return names;
}

/**
 * The names that end an INPUT_POLICY path: only an element of one of these names can have a
 * policy, so the others skip the lookup by full path (which would make V8 flatten the path
 * string built for each element).
 */
const POLICY_NAMES: ReadonlySet<string> = new Set(Object.keys(INPUT_POLICY).map((p) => p.slice(p.lastIndexOf('.') + 1)));

function policyOf(element: SchemaElement, path: string): InputPolicy | undefined {
  return POLICY_NAMES.has(element.name) ? INPUT_POLICY[path] : undefined;
}

export function walkStructure(body: Record<string, unknown>, schema: XsdSchema, report: (e: FieldError) => void): StructureResult {
  const invalid = new Set<string>();

  const walkGroup = (value: unknown, element: GroupElement, path: string): EcfObject | undefined => {
    if (!isPlainObject(value)) {
      report({ path, message: `must be an object, not ${describe(value)}` });
      invalid.add(path);
      return undefined;
    }
    const names = childNames(element);
    for (const key of Object.keys(value)) {
      if (names.has(key)) continue;
      const policy = INPUT_POLICY[`${path}.${key}`];
      report({
        path: `${path}.${key}`,
        message: policy?.kind === 'refused'
          ? policy.why
          : `is not an element of ${element.name} in this e-CF type; valid names here: ${[...names].join(', ')}`,
      });
    }
    const out: Record<string, EcfValue> = {};
    for (const child of element.children) {
      // One load instead of Object.hasOwn and a load: an element name is never one of
      // Object.prototype's, and JSON has no undefined, so undefined means absent.
      const given = value[child.name];
      // An absent optional element has nothing to check or copy (whatever its input policy):
      // most of a schema's elements are absent from a document, so no path is built for them.
      if (given === undefined && child.min === 0) continue;
      const normalised = walkChild(given, child, `${path}.${child.name}`);
      if (normalised !== undefined) out[child.name] = normalised;
    }
    return out;
  };

  const walkOne = (value: unknown, element: SchemaElement, path: string): EcfValue | undefined => {
    if (isGroup(element)) return walkGroup(value, element, path);
    const def = schema.simpleTypes[element.type];
    if (def === undefined) throw new Error(`schema table has no simple type ${element.type}`);
    const result = checkLeaf(value, def, element.type);
    for (const message of result.problems) report({ path, message });
    if (result.text === undefined) invalid.add(path);
    return result.text;
  };

  const walkChild = (value: unknown, element: SchemaElement, path: string): EcfValue | undefined => {
    const policy = policyOf(element, path);
    if (policy?.kind === 'refused') {
      if (value !== undefined) report({ path, message: policy.why });
      return undefined;
    }
    if (value === undefined) {
      if (element.min > 0 && policy?.kind !== 'optional') report({ path, message: 'is required' });
      return undefined;
    }
    if (value === null) {
      report({ path, message: 'must not be null; leave the element out instead' });
      invalid.add(path);
      return undefined;
    }
    if (element.max === 1) {
      if (Array.isArray(value)) {
        report({ path, message: `must be a single ${isGroup(element) ? 'object' : 'value'}, not an array (it cannot repeat)` });
        invalid.add(path);
        return undefined;
      }
      return walkOne(value, element, path);
    }
    // A repeating element may be sent as one object/value; it is normalised to an array.
    const items: unknown[] = Array.isArray(value) ? value : [value];
    if (items.length < element.min) report({ path, message: `needs at least ${element.min} entr${element.min === 1 ? 'y' : 'ies'}` });
    if (items.length > element.max) report({ path, message: `has ${items.length} entries; at most ${element.max} are allowed` });
    // Refused entries keep their slot (as an empty placeholder) so later rules report the
    // same indexes the client sent; the document itself is only returned when nothing failed.
    const normalised = items.map((item, index): EcfValue =>
      walkOne(item, element, `${path}[${index}]`) ?? (isGroup(element) ? {} : ''));
    return items.length === 0 ? undefined : normalised;
  };

  const ecf = walkChild(body.ECF, schema.root, 'ECF');
  return { ecf: ecf as EcfObject | undefined, invalid };
}
