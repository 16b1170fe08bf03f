// Shapes of the schema table that is generated from DGII's e-CF XSDs.

export type XsdBase = 'string' | 'integer' | 'decimal';

/** One `xs:simpleType` restriction: the facets a leaf value must satisfy. */
export interface SimpleTypeDef {
  readonly base: XsdBase;
  readonly enumeration?: readonly string[];
  /** XSD regular expressions; a value must match at least one (one restriction step). */
  readonly patterns?: readonly string[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly totalDigits?: number;
  readonly fractionDigits?: number;
  readonly minInclusive?: string;
  readonly maxInclusive?: string;
  readonly minExclusive?: string;
  readonly maxExclusive?: string;
}

interface ElementBase {
  readonly name: string;
  readonly min: number;
  readonly max: number;
}

/** An element with a simple type: its text is checked against `simpleTypes[type]`. */
export interface LeafElement extends ElementBase {
  readonly type: string;
}

/** An element whose content is an `xs:sequence` of child elements, in XSD order. */
export interface GroupElement extends ElementBase {
  readonly children: readonly SchemaElement[];
}

export type SchemaElement = LeafElement | GroupElement;

/** Everything one e-CF type's XSD says about the document, minus the trailing `xs:any` (Signature). */
export interface XsdSchema {
  readonly root: GroupElement;
  readonly simpleTypes: Readonly<Record<string, SimpleTypeDef>>;
}

export function isGroup(element: SchemaElement): element is GroupElement {
  return 'children' in element;
}

/** Occurrences of the xs:any that ends a DGII root sequence, where the XML-DSig Signature goes. */
export interface SignatureSlot {
  readonly min: number;
  readonly max: number;
}

/** A whole DGII document schema: the root's tree and simple types plus its Signature slot, if it has one. */
export interface XsdDocument extends XsdSchema {
  readonly signature: SignatureSlot | undefined;
}
