// Writes schemas.data.ts from DGII's XSDs: the trees of RFCE, ARECF, ACECF and ANECF, and the
// Signature slot of every schema (the e-CF trees themselves stay in the e-CF validation table).
// Usage: npx tsx src/dgii/ecf-xml/generate-schemas.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ECF_TIPOS } from '../../documents/validation/ecf-types.ts';
import { XSD_DIR } from '../../documents/validation/schema/generate-schema.ts';
import { quote, renderSimpleType } from '../../documents/validation/schema/render-schema-module.ts';
import { isGroup } from '../../documents/validation/schema/schema-types.ts';
import { readXsdDocument } from '../../documents/validation/schema/xsd-reader.ts';
import { DGII_DOCUMENT_KINDS, DGII_DOCUMENT_XSDS } from './kinds.ts';
import type { SchemaElement, SignatureSlot, XsdDocument } from '../../documents/validation/schema/schema-types.ts';

export const SCHEMAS_DATA_FILE = fileURLToPath(new URL('./schemas.data.ts', import.meta.url));

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

export function renderSchemasModule(folder: string = XSD_DIR): string {
  const read = (file: string, root: string): XsdDocument => readXsdDocument(readFileSync(join(folder, file), 'utf8'), root);
  const documents = DGII_DOCUMENT_KINDS.map((kind) => {
    const file = DGII_DOCUMENT_XSDS[kind];
    return `  // ${file}\n  ${kind}: {\n${renderDocument(read(file, kind))}\n  },`;
  });
  const slots = ECF_TIPOS.map((tipo) => `  ${tipo}: ${renderSlot(read(`ecf-${tipo}.xsd`, 'ECF').signature)},`);
  return [
    "// GENERATED from DGII's XSDs (src/dgii/xsd/). Do not edit by hand: regenerate with",
    '//   npx tsx src/dgii/ecf-xml/generate-schemas.ts',
    "import type { EcfTipo } from '../../documents/validation/ecf-types.ts';",
    "import type { SignatureSlot, XsdDocument } from '../../documents/validation/schema/schema-types.ts';",
    "import type { DgiiDocumentKind } from './kinds.ts';",
    '',
    'export const DGII_DOCUMENT_SCHEMAS: Readonly<Record<DgiiDocumentKind, XsdDocument>> = {',
    ...documents,
    '};',
    '',
    '/** The trailing xs:any of each e-CF XSD; the trees are in the e-CF validation table. */',
    'export const ECF_SIGNATURE_SLOTS: Readonly<Record<EcfTipo, SignatureSlot | undefined>> = {',
    ...slots,
    '};',
    '',
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(SCHEMAS_DATA_FILE, renderSchemasModule(process.argv[2]));
  process.stdout.write(`wrote ${SCHEMAS_DATA_FILE}\n`);
}
