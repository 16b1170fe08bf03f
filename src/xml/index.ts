/** Public surface of the XML layer: safe parsing, building, Canonical XML 1.0 and DGII's enveloped XMLDSig. */
export { parseXml } from './parse.ts';
export { XML_ERROR, XmlError } from './errors.ts';
export type { XmlErrorCode } from './errors.ts';
export { DEFAULT_XML_LIMITS } from './types.ts';
export type {
  XmlAttribute,
  XmlComment,
  XmlDeclaration,
  XmlDocument,
  XmlElement,
  XmlLimits,
  XmlMisc,
  XmlNamespaceDeclaration,
  XmlNode,
  XmlProcessingInstruction,
  XmlSource,
  XmlText,
} from './types.ts';
export { childElement, childElementsNamed, elementChildren, findPath, inScopeNamespaces, isElement, textAt, textContent } from './tree.ts';
export { el, plainEl, escapeAttribute, escapeText, serializeXml, XML_DECLARATION } from './build.ts';
export type { SerializeOptions, XmlBuildAttributes, XmlBuildChild, XmlBuildElement, XmlBuildInput } from './build.ts';
export { canonicalizeDocument, canonicalizeElement } from './c14n.ts';
export type { C14nOptions } from './c14n.ts';
export { MIN_RSA_BITS, signBuiltWithValue, signXml, signXmlWithValue, verifyParsed, verifyXml, XMLDSIG } from './xmldsig.ts';
export type { SignedXml as SignedXmlDocument } from './xmldsig.ts';
export type { VerifyResult } from './xmldsig.ts';
