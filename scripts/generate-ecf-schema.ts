// Regenerates src/ecf/schema/schemas.data.ts from DGII's XSDs.
// Usage: node scripts/generate-ecf-schema.ts [folder with ecf-31.xsd … ecf-47.xsd and the other XSDs]
import { writeFileSync } from 'node:fs';
import { SCHEMA_DATA_FILE, XSD_DIR, renderSchemaData } from '../src/ecf/schema/generate.ts';

writeFileSync(SCHEMA_DATA_FILE, renderSchemaData(process.argv[2] ?? XSD_DIR));
process.stdout.write(`wrote ${SCHEMA_DATA_FILE}\n`);
