// Public API of e-CF JSON validation. validateEcf reads TipoeCF first (it selects the XSD),
// then walks the body along that type's element tree generated from DGII's XSDs (structure,
// occurrences, facets), then runs the business rules of rules/index.ts on the normalised copy.
export { validateEcf, MAX_ERRORS } from './validate-ecf.ts';
export { ECF_TYPES, ECF_TIPOS, isEcfTipo } from '../ecf-types.ts';
export { ecfSchema, schemaElement } from '../schema/ecf-schema.ts';
export { ECF_RULES } from './rules/index.ts';
export { INPUT_POLICY } from './input-policy.ts';
export { isGroup } from '../schema/schema-types.ts';
export type { EcfTipo, EcfTypeInfo, BuyerRnc } from '../ecf-types.ts';
export type { EcfDocument, EcfObject, EcfValue, FieldError, ValidationResult } from '../types.ts';
export type { GroupElement, LeafElement, SchemaElement, SimpleTypeDef, XsdSchema } from '../schema/schema-types.ts';
