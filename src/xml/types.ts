/** The parsed document model. Trees are built by the parser and treated as read-only afterwards. */

export interface XmlAttribute {
  readonly name: string;
  readonly prefix: string;
  readonly localName: string;
  /** '' when the attribute is in no namespace (every unprefixed attribute). */
  readonly namespaceURI: string;
  readonly value: string;
}

/** An xmlns / xmlns:p attribute as written on the element; prefix '' is the default namespace, uri '' undeclares it. */
export interface XmlNamespaceDeclaration {
  readonly prefix: string;
  readonly uri: string;
}

export interface XmlElement {
  readonly kind: 'element';
  readonly name: string;
  readonly prefix: string;
  readonly localName: string;
  readonly namespaceURI: string;
  /** Ordinary attributes in document order; namespace declarations are kept apart in namespaceDeclarations. */
  readonly attributes: readonly XmlAttribute[];
  readonly namespaceDeclarations: readonly XmlNamespaceDeclaration[];
  readonly children: readonly XmlNode[];
  readonly parent: XmlElement | null;
}

/** Character data; CDATA sections and references are already resolved and adjacent runs merged. */
export interface XmlText {
  readonly kind: 'text';
  readonly value: string;
}

export interface XmlComment {
  readonly kind: 'comment';
  readonly value: string;
}

export interface XmlProcessingInstruction {
  readonly kind: 'pi';
  readonly target: string;
  /** Everything after the whitespace that follows the target, up to '?>'. */
  readonly data: string;
}

export type XmlNode = XmlElement | XmlText | XmlComment | XmlProcessingInstruction;
export type XmlMisc = XmlComment | XmlProcessingInstruction;

export interface XmlDeclaration {
  readonly version: string;
  readonly encoding: string | undefined;
  readonly standalone: boolean | undefined;
}

/**
 * Where things are in the parsed text, so a signer can append to the root without re-serialising
 * (and so without disturbing) what the author wrote.
 */
export interface XmlSource {
  /** The input after BOM removal and line-end normalisation. */
  readonly text: string;
  /** Offset just past the XML declaration (0 when there is none). */
  readonly bodyStart: number;
  /** Offset of the root's '</' end tag, or of its '/>' when the root is an empty-element tag. */
  readonly rootClose: number;
  readonly rootSelfClosing: boolean;
}

export interface XmlDocument {
  readonly declaration: XmlDeclaration | undefined;
  /** Comments and PIs before the root element. */
  readonly prolog: readonly XmlMisc[];
  readonly root: XmlElement;
  /** Comments and PIs after the root element. */
  readonly epilog: readonly XmlMisc[];
  readonly source: XmlSource;
}

export interface XmlLimits {
  /** UTF-8 size of the input. */
  readonly maxBytes: number;
  /** Element nesting; the root is depth 1. */
  readonly maxDepth: number;
  /** Elements, text runs, comments and processing instructions together. */
  readonly maxNodes: number;
  /** Attributes on one element, namespace declarations included. */
  readonly maxAttributes: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxBytes: 5 * 1024 * 1024,
  maxDepth: 100,
  maxNodes: 200_000,
  maxAttributes: 256,
};
