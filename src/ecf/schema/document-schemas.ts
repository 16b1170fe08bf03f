// One shape for every DGII document the service builds or checks: the root's element tree
// and simple types (from the generated tables) plus the Signature slot that ends the root.
import { ecfSchema } from './ecf-schema.ts';
import { DGII_DOCUMENT_SCHEMAS, ECF_SIGNATURE_SLOTS } from './schemas.data.ts';
import type { EcfTipo } from '../ecf-types.ts';
import type { XsdDocument } from './schema-types.ts';
import type { DgiiDocumentKind } from './kinds.ts';

export function documentSchema(kind: DgiiDocumentKind): XsdDocument {
  return DGII_DOCUMENT_SCHEMAS[kind];
}

const ecfDocuments = new Map<EcfTipo, XsdDocument>();

export function ecfDocumentSchema(tipo: EcfTipo): XsdDocument {
  let document = ecfDocuments.get(tipo);
  if (document === undefined) {
    document = { ...ecfSchema(tipo), signature: ECF_SIGNATURE_SLOTS[tipo] };
    ecfDocuments.set(tipo, document);
  }
  return document;
}
