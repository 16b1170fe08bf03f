// Writes normalised JSON (EcfObject) as XML along a schema element tree, so element order,
// repetition and names come from the XSD and never from the JSON's key order.
import { el, plainEl } from '../../xml/index.ts';
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

const NONE: readonly EcfValue[] = [];

// `parent` is the group's path: the element's own is made only for an error, as most of a
// schema's elements are absent from a document.
function occurrences(value: EcfValue | undefined, element: SchemaElement, parent: string): readonly EcfValue[] {
  if (value === undefined) return NONE;
  if (!Array.isArray(value)) return [value];
  if (element.max === 1) throw new TypeError(`${parent}.${element.name} cannot repeat, but the data holds an array`);
  return value as readonly EcfValue[];
}

function buildLeaf(element: SchemaElement, value: EcfValue, parent: string): XmlBuildElement | undefined {
  if (typeof value !== 'string') throw new TypeError(`${parent}.${element.name} must be text in normalised data`);
  return value === '' ? undefined : plainEl(element.name, [value]);
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
    let written = 0;
    for (const item of occurrences(value[child.name], child, path)) {
      let node: XmlBuildElement | undefined;
      if (isGroup(child)) {
        if (!isObject(item)) throw new TypeError(`${path}.${child.name} must be an object in normalised data`);
        node = buildGroup(child, item, `${path}.${child.name}`);
      } else {
        node = buildLeaf(child, item, path);
      }
      if (node === undefined) continue;
      children.push(node);
      written++;
    }
    if (written > 0) hasContent = true;
    else if (requiredButMayBeEmpty(child)) children.push(el(child.name));
  }
  return hasContent ? plainEl(group.name, children) : undefined;
}
