// The unsigned e-CF XML: the normalised JSON of one type written along that type's XSD tree,
// with FechaHoraFirma (set when signing) as the last element before the Signature slot.
import { serializeXml, type XmlBuildElement } from '../../xml/index.ts';
import { checkLeaf } from '../validation/facets.ts';
import { ecfSchema } from '../schema/ecf-schema.ts';
import { isGroup } from '../schema/schema-types.ts';
import { buildGroup } from './build-tree.ts';
import type { EcfTipo } from '../ecf-types.ts';
import type { EcfObject } from '../types.ts';

const FECHA_HORA_FIRMA = 'FechaHoraFirma';

/**
 * `ecf` is the content of ECF as validateEcf returns it; `fechaHoraFirma` is dd-MM-yyyy HH:mm:ss
 * (formatFechaHoraFirma). The result starts with the UTF-8 XML declaration and is compact, so
 * what signXml signs is exactly what was built.
 */
export function buildEcfXml(tipo: EcfTipo, ecf: EcfObject, fechaHoraFirma: string): string {
  return serializeXml(buildEcfTree(tipo, ecf, fechaHoraFirma), { declaration: true });
}

/** buildEcfXml's tree, for signing it without writing it out and reading it back (signBuiltWithValue). */
export function buildEcfTree(tipo: EcfTipo, ecf: EcfObject, fechaHoraFirma: string): XmlBuildElement {
  const schema = ecfSchema(tipo);
  const last = schema.root.children.at(-1);
  if (last === undefined || last.name !== FECHA_HORA_FIRMA || isGroup(last)) {
    throw new Error(`the e-CF ${tipo} schema does not end with ${FECHA_HORA_FIRMA}`);
  }
  const def = schema.simpleTypes[last.type];
  if (def === undefined) throw new Error(`the e-CF ${tipo} schema lacks simple type ${last.type}`);
  const check = checkLeaf(fechaHoraFirma, def, last.type);
  if (check.problems.length > 0) throw new RangeError(`FechaHoraFirma "${fechaHoraFirma}" ${check.problems.join('; ')}`);

  const root = buildGroup(schema.root, { ...ecf, [FECHA_HORA_FIRMA]: fechaHoraFirma }, 'ECF');
  if (root === undefined) throw new Error('internal: the e-CF root came out empty');
  return root;
}
