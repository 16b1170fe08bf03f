/** Stable error codes of the XML layer; callers switch on these, never on messages. */
export const XML_ERROR = {
  MALFORMED: 'XML_MALFORMED',
  DTD_FORBIDDEN: 'XML_DTD_FORBIDDEN',
  ENTITY_FORBIDDEN: 'XML_ENTITY_FORBIDDEN',
  INVALID_CHAR: 'XML_INVALID_CHAR',
  NAMESPACE: 'XML_NAMESPACE',
  ENCODING: 'XML_ENCODING',
  TOO_LARGE: 'XML_TOO_LARGE',
  TOO_DEEP: 'XML_TOO_DEEP',
  TOO_MANY_NODES: 'XML_TOO_MANY_NODES',
  TOO_MANY_ATTRIBUTES: 'XML_TOO_MANY_ATTRIBUTES',
  INVALID_NAME: 'XML_INVALID_NAME',
  ALREADY_SIGNED: 'XML_ALREADY_SIGNED',
  SIGNING_KEY: 'XML_SIGNING_KEY',
} as const;

export type XmlErrorCode = (typeof XML_ERROR)[keyof typeof XML_ERROR];

export class XmlError extends Error {
  readonly code: XmlErrorCode;
  /** Offset in the (line-end normalised) input where the problem was found, when it applies. */
  readonly offset: number | undefined;

  constructor(code: XmlErrorCode, message: string, offset?: number) {
    super(offset === undefined ? message : `${message} (at offset ${offset})`);
    this.name = 'XmlError';
    this.code = code;
    this.offset = offset;
  }
}
