// Writes normalised JSON (EcfObject) as XML along a schema element tree, so element order,
// repetition and names come from the XSD and never from the JSON's key order.
import { el } from '../../xml/index.ts';
import { isGroup } from '../schema/schema-types.ts';
import type { XmlBuildElement } from '../../xml/index.ts';
import type { EcfObject, EcfValue } from '../types.ts';
import type { GroupElement, SchemaElement } from '../schema/schema-types.ts';

function isObject(value: EcfValue): value is EcfObject {
  return typeof value === 'object' && !Array.isArray(value);
}

/** A group the XSD requires although every child is optional (Comprador in type 32 and RFCE). */
function requiredButMayBeEmpty(element: SchemaElement): boolean {
  return isGroup(element) && element.min > 0 && element.children.every((c) => c.min === 0);
}

function occurrences(value: EcfValue | undefined, element: SchemaElement, path: string): readonly EcfValue[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [value];
  if (element.max === 1) throw new TypeError(`${path} cannot repeat, but the data holds an array`);
  return value as readonly EcfValue[];
}

function buildLeaf(element: SchemaElement, value: EcfValue, path: string): XmlBuildElement | undefined {
  if (typeof value !== 'string') throw new TypeError(`${path} must be text in normalised data`);
  return value === '' ? undefined : el(element.name, value);
}

/**
 * The group as an element, or undefined when it has no content at all: DGII rejects empty
 * elements, so empty strings and groups left empty are dropped rather than written. The one
 * exception is a required group whose children are all optional: its parent writes it empty,
 * because the XSD accepts <Comprador/> there and rejects its absence.
 */
export function buildGroup(group: GroupElement, value: EcfObject, path: string): XmlBuildElement | undefined {
  const children: XmlBuildElement[] = [];
  let hasContent = false;
  for (const child of group.children) {
    const childPath = `${path}.${child.name}`;
    let written = 0;
    for (const item of occurrences(value[child.name], child, childPath)) {
      let node: XmlBuildElement | undefined;
      if (isGroup(child)) {
        if (!isObject(item)) throw new TypeError(`${childPath} must be an object in normalised data`);
        node = buildGroup(child, item, childPath);
      } else {
        node = buildLeaf(child, item, childPath);
      }
      if (node === undefined) continue;
      children.push(node);
      written++;
    }
    if (written > 0) hasContent = true;
    else if (requiredButMayBeEmpty(child)) children.push(el(child.name));
  }
  return hasContent ? el(group.name, children) : undefined;
}
