// Checks a parsed DGII document against its XSD table the way a schema validator does:
// root name, xs:sequence order, minOccurs/maxOccurs, unknown elements, text where only
// elements may be, leaf facets (facets.ts), and the Signature slot that ends the root.
// DGII's schemas use only sequences of elements (no xs:choice, xs:all or attributes), so a
// greedy walk over each sequence decides exactly what libxml2 decides.
import { parseXml, XMLDSIG } from '../../xml/index.ts';
import { elementChildren, textContent } from '../../xml/index.ts';
import { checkLeaf } from '../validation/facets.ts';
import { isGroup } from '../schema/schema-types.ts';
import { MAX_ERRORS } from '../validation/validate-ecf.ts';
import type { XmlDocument, XmlElement } from '../../xml/index.ts';
import type { FieldError } from '../types.ts';
import type { GroupElement, LeafElement, SchemaElement, SignatureSlot, XsdDocument } from '../schema/schema-types.ts';

export interface TreeOptions {
  /** Skip the Signature requirement: for documents the service just built and has yet to sign. */
  readonly unsigned?: boolean;
}

const XML_SPACE = /^[ \t\r\n]*$/;
const EDGE_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

function isSignature(element: XmlElement): boolean {
  return element.localName === 'Signature' && element.namespaceURI === XMLDSIG.namespace;
}

/** The names a sequence accepts next: the current particle while it may repeat, then up to the next required one. */
function expectedNext(particles: readonly SchemaElement[], at: number, count: number, slot: SignatureSlot | undefined, signatures: number): string {
  const names: string[] = [];
  const current = particles[at];
  if (current !== undefined && count < current.max) names.push(current.name);
  if (current === undefined || count >= current.min) {
    let k = at + 1;
    for (; k < particles.length; k++) {
      const particle = particles[k] as SchemaElement;
      names.push(particle.name);
      if (particle.min > 0) break;
    }
    if (k >= particles.length && slot !== undefined && signatures < slot.max) names.push('Signature');
  }
  return names.join(', ') || 'nothing more';
}

class TreeValidator {
  readonly errors: FieldError[] = [];
  private dropped = 0;
  private readonly schema: XsdDocument;
  private readonly options: TreeOptions;

  constructor(schema: XsdDocument, options: TreeOptions) {
    this.schema = schema;
    this.options = options;
  }

  report(path: string, message: string): void {
    if (this.errors.length < MAX_ERRORS) this.errors.push({ path, message });
    else this.dropped++;
  }

  finish(): FieldError[] {
    if (this.dropped > 0) this.errors.push({ path: this.schema.root.name, message: `${this.dropped} more problem(s) not listed; fix these first` });
    return this.errors;
  }

  private attributes(element: XmlElement, path: string): void {
    // Namespace declarations are kept apart by the parser and are always allowed.
    for (const attribute of element.attributes) {
      this.report(path, `attribute ${attribute.name} is not allowed: DGII elements carry no attributes`);
    }
  }

  private leaf(element: XmlElement, leaf: LeafElement, path: string): void {
    this.attributes(element, path);
    if (elementChildren(element).length > 0) {
      this.report(path, 'must hold text only, not child elements');
      return;
    }
    const def = this.schema.simpleTypes[leaf.type];
    if (def === undefined) throw new Error(`schema table has no simple type ${leaf.type}`);
    // Numeric XSD types collapse whitespace before checking; strings keep it.
    const raw = textContent(element);
    const text = def.base === 'string' ? raw : raw.replace(EDGE_SPACE, '');
    for (const problem of checkLeaf(text, def, leaf.type).problems) this.report(path, problem);
  }

  private missing(particle: SchemaElement, have: number, path: string): void {
    if (have >= particle.min) return;
    this.report(`${path}.${particle.name}`, particle.min === 1 ? 'is required' : `needs at least ${particle.min} (found ${have})`);
  }

  group(element: XmlElement, group: GroupElement, path: string, slot?: SignatureSlot): void {
    this.attributes(element, path);
    if (element.children.some((c) => c.kind === 'text' && !XML_SPACE.test(c.value))) {
      this.report(path, 'must hold only elements, not text');
    }
    const particles = group.children;
    const find = (name: string, from: number): number => {
      for (let k = from; k < particles.length; k++) if (particles[k]?.name === name) return k;
      return -1;
    };
    let at = 0;
    let count = 0;
    let signatures = 0;
    let previous = '';

    for (const child of elementChildren(element)) {
      const name = child.localName;
      if (child.namespaceURI !== '') {
        if (slot !== undefined && isSignature(child)) {
          for (let k = at; k < particles.length; k++) this.missing(particles[k] as SchemaElement, k === at ? count : 0, path);
          at = particles.length;
          count = 0;
          signatures++;
          if (signatures > slot.max) this.report(`${path}.Signature`, `may appear at most ${slot.max} time(s)`);
          else if (signatures === 1) previous = 'Signature';
        } else if (isSignature(child)) {
          this.report(`${path}.Signature`, `is only allowed as the last element of ${this.schema.root.name}`);
        } else {
          this.report(`${path}.${name}`, `is in namespace "${child.namespaceURI}"; DGII elements have no namespace`);
        }
        continue;
      }
      let target = find(name, at);
      if (target === at && count >= (particles[at] as SchemaElement).max) {
        const later = find(name, at + 1);
        if (later < 0) {
          this.report(`${path}.${name}`, `may appear at most ${(particles[at] as SchemaElement).max} time(s)`);
          continue;
        }
        target = later;
      }
      if (target < 0) {
        this.report(`${path}.${name}`, particles.some((p) => p.name === name)
          ? `is out of order: it must come before ${previous}`
          : `is not an element of ${group.name}; expected here: ${expectedNext(particles, at, count, slot, signatures)}`);
        continue;
      }
      if (target > at) {
        for (let k = at; k < target; k++) this.missing(particles[k] as SchemaElement, k === at ? count : 0, path);
        at = target;
        count = 0;
      }
      const particle = particles[at] as SchemaElement;
      const childPath = particle.max > 1 ? `${path}.${name}[${count}]` : `${path}.${name}`;
      count++;
      previous = name;
      if (isGroup(particle)) this.group(child, particle, childPath);
      else this.leaf(child, particle, childPath);
    }

    for (let k = at; k < particles.length; k++) this.missing(particles[k] as SchemaElement, k === at ? count : 0, path);
    if (slot !== undefined && signatures < slot.min && this.options.unsigned !== true) {
      this.report(`${path}.Signature`, 'is required: the document must end with its XML-DSig Signature');
    }
  }
}

/** Every way `doc` departs from `schema`; empty when it conforms. Paths index repeated elements from 0. */
export function validateTree(doc: XmlDocument, schema: XsdDocument, options: TreeOptions = {}): FieldError[] {
  const validator = new TreeValidator(schema, options);
  const { root } = doc;
  const expected = schema.root.name;
  if (root.localName !== expected || root.namespaceURI !== '') {
    const found = root.namespaceURI === '' ? `<${root.name}>` : `<${root.name}> in namespace "${root.namespaceURI}"`;
    validator.report(expected, `the root element must be <${expected}> in no namespace, not ${found}`);
    return validator.finish();
  }
  validator.group(root, schema.root, expected, schema.signature);
  return validator.finish();
}

/** For builders: throws when the unsigned document they produced would not pass its XSD. */
export function assertBuiltDocumentValid(xml: string, schema: XsdDocument): void {
  const problems = validateTree(parseXml(xml), schema, { unsigned: true });
  if (problems.length > 0) {
    const list = problems.map((p) => `${p.path} ${p.message}`).join('; ');
    throw new RangeError(`the ${schema.root.name} document cannot be built from these data: ${list}`);
  }
}
