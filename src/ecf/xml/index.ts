// DGII XML documents: building the e-CF, RFCE and ARECF, the security code and timbre URL,
// reading received e-CF back to JSON, and XSD validation of XML without xmllint.
export { buildEcfTree, buildEcfXml } from './build-ecf.ts';
export { formatFechaHoraFirma, parseDgiiDateTime } from './dgii-time.ts';
export { securityCode, securityCodeIn, securityCodeOf, timbreUrl } from './timbre.ts';
export type { TimbreParams } from './timbre.ts';
export { buildRfceXml, RFCE_MONTO_LIMITE, sentAsRfce } from './rfce.ts';
export { buildArecfXml, ESTADO_ACUSE, MOTIVO_NO_RECIBIDO } from './arecf.ts';
export type { ArecfParams, MotivoNoRecibido } from './arecf.ts';
export { ANECF_MAX_LINES, ANECF_MAX_SEQUENCES, anecfCounts, buildAnecfXml } from './anecf.ts';
export type { AnecfLine, AnecfParams } from './anecf.ts';
export { buildAcecfXml } from './acecf.ts';
export type { AcecfParams } from './acecf.ts';
export { ecfXmlToObject } from './to-object.ts';
export { validateAcecfXml, validateAnecfXml, validateArecfXml, validateEcfXml, validateRfceXml } from './validate.ts';
export { documentSchema, ecfDocumentSchema } from '../schema/document-schemas.ts';
export { DGII_DOCUMENT_KINDS, DGII_DOCUMENT_XSDS } from '../schema/kinds.ts';
export type { DgiiDocumentKind } from '../schema/kinds.ts';
