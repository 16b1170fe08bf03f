// The DGII documents besides the e-CF itself that the service builds or checks, and the XSD
// each is read from. RFCE and ACECF use the libxml2 variants: same documents, patterns without
// the `(?:` groups XSD regular expressions do not allow (see src/ecf/xsd/README.md).
export const DGII_DOCUMENT_XSDS = {
  RFCE: 'rfce-32.libxml2.xsd',
  ARECF: 'arecf.xsd',
  ACECF: 'acecf.libxml2.xsd',
  ANECF: 'anecf.xsd',
} as const;

export type DgiiDocumentKind = keyof typeof DGII_DOCUMENT_XSDS;

export const DGII_DOCUMENT_KINDS = Object.keys(DGII_DOCUMENT_XSDS) as DgiiDocumentKind[];
