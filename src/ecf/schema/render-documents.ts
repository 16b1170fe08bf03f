// Renders the part of schemas.data.ts for the DGII documents other than the e-CF (RFCE, ARECF,
// ACECF, ANECF) and the Signature slot that ends every schema's root.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ECF_TIPOS } from '../ecf-types.ts';
import { DGII_DOCUMENT_KINDS, DGII_DOCUMENT_XSDS } from './kinds.ts';
import { quote, renderSimpleType } from './render-schema-module.ts';
import { isGroup } from './schema-types.ts';
import { readXsdDocument } from './xsd-reader.ts';
import type { SchemaElement, SignatureSlot, XsdDocument } from './schema-types.ts';

function renderElement(element: SchemaElement, indent: string): string {
  const head = `name: ${quote(element.name)}, min: ${element.min}, max: ${element.max}`;
  if (!isGroup(element)) return `{ ${head}, type: ${quote(element.type)} }`;
  const inner = `${indent}  `;
  const items = element.children.map((c) => `${inner}${renderElement(c, inner)},`).join('\n');
  return `{ ${head}, children: [\n${items}\n${indent}] }`;
}

function renderSlot(slot: SignatureSlot | undefined): string {
  return slot === undefined ? 'undefined' : `{ min: ${slot.min}, max: ${slot.max} }`;
}

function renderDocument(document: XsdDocument): string {
  const types = Object.keys(document.simpleTypes).sort().map((name) => {
    const def = document.simpleTypes[name];
    if (def === undefined) throw new Error(`missing simple type ${name}`);
    return `      ${name}: ${renderSimpleType(def, '      ')},`;
  });
  return [
    `    root: ${renderElement(document.root, '    ')},`,
    '    simpleTypes: {',
    ...types,
    '    },',
    `    signature: ${renderSlot(document.signature)},`,
  ].join('\n');
}

/** The declarations DGII_DOCUMENT_SCHEMAS and ECF_SIGNATURE_SLOTS, read from the XSDs in `folder`. */
export function renderDocumentTables(folder: string): string[] {
  const read = (file: string, root: string): XsdDocument => readXsdDocument(readFileSync(join(folder, file), 'utf8'), root);
  const documents = DGII_DOCUMENT_KINDS.map((kind) => {
    const file = DGII_DOCUMENT_XSDS[kind];
    return `  // ${file}\n  ${kind}: {\n${renderDocument(read(file, kind))}\n  },`;
  });
  const slots = ECF_TIPOS.map((tipo) => `  ${tipo}: ${renderSlot(read(`ecf-${tipo}.xsd`, 'ECF').signature)},`);
  return [
    'export const DGII_DOCUMENT_SCHEMAS: Readonly<Record<DgiiDocumentKind, XsdDocument>> = {',
    ...documents,
    '};',
    '',
    '/** The trailing xs:any of each e-CF XSD (left out of ECF_XSD_SCHEMAS\' trees). */',
    'export const ECF_SIGNATURE_SLOTS: Readonly<Record<EcfTipo, SignatureSlot | undefined>> = {',
    ...slots,
    '};',
  ];
}
