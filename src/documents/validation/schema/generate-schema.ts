// Reads DGII's ecf-31.xsd … ecf-47.xsd for the generator (scripts/generate-ecf-schema.ts) and its test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ECF_TIPOS } from '../ecf-types.ts';
import { readEcfXsd } from './xsd-reader.ts';
import type { XsdSchema } from './schema-types.ts';

export const SCHEMA_DATA_FILE = fileURLToPath(new URL('./ecf-schema.data.ts', import.meta.url));

export function readEcfXsdFolder(folder: string): Map<number, XsdSchema> {
  return new Map(ECF_TIPOS.map((tipo) => [tipo, readEcfXsd(readFileSync(join(folder, `ecf-${tipo}.xsd`), 'utf8'))]));
}

/** DGII's XSDs as shipped with the service. */
export const XSD_DIR = fileURLToPath(new URL('../../../dgii/xsd/', import.meta.url));
