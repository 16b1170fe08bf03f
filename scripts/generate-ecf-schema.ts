// Regenerates src/documents/validation/schema/ecf-schema.data.ts from DGII's XSDs.
// Usage: node scripts/generate-ecf-schema.ts [folder with ecf-31.xsd … ecf-47.xsd]
import { writeFileSync } from 'node:fs';
import { SCHEMA_DATA_FILE, XSD_DIR, readEcfXsdFolder } from '../src/documents/validation/schema/generate-schema.ts';
import { renderSchemaModule } from '../src/documents/validation/schema/render-schema-module.ts';

const folder = process.argv[2] ?? XSD_DIR;
writeFileSync(SCHEMA_DATA_FILE, renderSchemaModule(readEcfXsdFolder(folder)));
process.stdout.write(`wrote ${SCHEMA_DATA_FILE}\n`);
