// The inverse of the builders: a DGII document's XML read back into the normalised JSON view
// (keys in XSD order, leaves as text, repeatable elements as arrays), e.g. to store and list
// e-CF received from other taxpayers. Elements the schema does not know are left out, so
// validate first to know that nothing was.
import { elementChildren, textContent } from '../../xml/index.ts';
import { ecfSchema } from '../schema/ecf-schema.ts';
import { isGroup } from '../schema/schema-types.ts';
import { readEcfTipo } from './ecf-tipo.ts';
import type { XmlElement } from '../../xml/index.ts';
import type { EcfObject, EcfValue } from '../types.ts';
import type { GroupElement, SimpleTypeDef } from '../schema/schema-types.ts';

const EDGE_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

function readGroup(element: XmlElement, group: GroupElement, types: Readonly<Record<string, SimpleTypeDef>>): EcfObject {
  const byName = new Map<string, XmlElement[]>();
  for (const child of elementChildren(element)) {
    if (child.namespaceURI !== '') continue;
    const list = byName.get(child.localName);
    if (list === undefined) byName.set(child.localName, [child]);
    else list.push(child);
  }
  const out: Record<string, EcfValue> = {};
  for (const particle of group.children) {
    const found = byName.get(particle.name);
    if (found === undefined) continue;
    const values = found.map((child): EcfValue => {
      if (isGroup(particle)) return readGroup(child, particle, types);
      const text = textContent(child);
      // Numeric types collapse surrounding whitespace in XSD, so the value is the trimmed text.
      return types[particle.type]?.base === 'string' ? text : text.replace(EDGE_SPACE, '');
    });
    out[particle.name] = particle.max > 1 ? values : (values[0] as EcfValue);
  }
  return out;
}

/** The content of a received <ECF> (what validateEcf returns as `ecf`, plus FechaHoraFirma). */
export function ecfXmlToObject(root: XmlElement): EcfObject {
  if (root.localName !== 'ECF' || root.namespaceURI !== '') throw new RangeError(`expected an <ECF> root, not <${root.name}>`);
  const reading = readEcfTipo(root);
  if (reading.tipo === undefined) throw new RangeError(`ECF.Encabezado.IdDoc.TipoeCF ${reading.problem}`);
  const schema = ecfSchema(reading.tipo);
  return readGroup(root, schema.root, schema.simpleTypes);
}
