// In-process XSD validation of DGII documents, for the DGII simulator and the receiver group:
// the verdicts of `xmllint --schema` on DGII's XSDs, with three deliberate differences, all
// stricter. The Signature slot (an xs:any that lets any element through) must hold the XML-DSig
// Signature; no attribute is allowed on DGII elements, not even the xsi:* ones schema
// validators tolerate; and e-CF leaves also get the service's leaf formats (dates that exist,
// dd-MM-yyyy, eNCF shape) that validateEcf applies to JSON bodies, because facets.ts is shared.
import { ecfDocumentSchema, documentSchema } from '../schema/document-schemas.ts';
import { readEcfTipo, TIPO_PATH } from './ecf-tipo.ts';
import { validateTree } from './validate-tree.ts';
import type { XmlDocument } from '../../xml/index.ts';
import type { FieldError } from '../types.ts';

/** An e-CF of any of the ten types; the type is read from Encabezado/IdDoc/TipoeCF. */
export function validateEcfXml(doc: XmlDocument): FieldError[] {
  const { root } = doc;
  // Every type has the same root, so any type's schema reports a wrong one.
  if (root.localName !== 'ECF' || root.namespaceURI !== '') return validateTree(doc, ecfDocumentSchema(31));
  const reading = readEcfTipo(root);
  if (reading.tipo === undefined) return [{ path: ['ECF', ...TIPO_PATH].join('.'), message: reading.problem }];
  return validateTree(doc, ecfDocumentSchema(reading.tipo));
}

export function validateRfceXml(doc: XmlDocument): FieldError[] {
  return validateTree(doc, documentSchema('RFCE'));
}

export function validateArecfXml(doc: XmlDocument): FieldError[] {
  return validateTree(doc, documentSchema('ARECF'));
}

export function validateAcecfXml(doc: XmlDocument): FieldError[] {
  return validateTree(doc, documentSchema('ACECF'));
}

export function validateAnecfXml(doc: XmlDocument): FieldError[] {
  return validateTree(doc, documentSchema('ANECF'));
}
