// The one generator of the schema tables: reads DGII's XSDs (src/ecf/xsd/) and writes
// schemas.data.ts, which validation, XML building and the OpenAPI document all read.
// Usage: node scripts/generate-ecf-schema.ts [folder with the XSDs]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ECF_TIPOS } from '../ecf-types.ts';
import { renderDocumentTables } from './render-documents.ts';
import { renderEcfTables } from './render-schema-module.ts';
import { readEcfXsd } from './xsd-reader.ts';
import type { XsdSchema } from './schema-types.ts';

export const SCHEMA_DATA_FILE = fileURLToPath(new URL('./schemas.data.ts', import.meta.url));

/** DGII's XSDs as shipped with the service. */
export const XSD_DIR = fileURLToPath(new URL('../xsd/', import.meta.url));

export function readEcfXsdFolder(folder: string): Map<number, XsdSchema> {
  return new Map(ECF_TIPOS.map((tipo) => [tipo, readEcfXsd(readFileSync(join(folder, `ecf-${tipo}.xsd`), 'utf8'))]));
}

/** The whole source of schemas.data.ts. */
export function renderSchemaData(folder: string = XSD_DIR): string {
  return [
    "// GENERATED from DGII's XSDs (src/ecf/xsd/). Do not edit by hand: regenerate with",
    '//   node scripts/generate-ecf-schema.ts',
    '// e-CF element trees keep XSD order and occurrences; their trailing xs:any (Signature) is',
    '// ECF_SIGNATURE_SLOTS. The other DGII documents keep theirs in `signature`.',
    "import type { EcfTipo } from '../ecf-types.ts';",
    "import type { DgiiDocumentKind } from './kinds.ts';",
    "import type { GroupElement, SignatureSlot, SimpleTypeDef, XsdDocument, XsdSchema } from './schema-types.ts';",
    '',
    ...renderEcfTables(readEcfXsdFolder(folder)),
    '',
    ...renderDocumentTables(folder),
    '',
  ].join('\n');
}
