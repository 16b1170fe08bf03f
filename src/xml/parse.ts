/**
 * A non-validating XML 1.0 + Namespaces parser that refuses DTDs and custom entities outright.
 * It is a single forward scan with an explicit element stack (no recursion), so hostile input
 * costs time linear in its size and memory bounded by the limits.
 */
import { isXmlSpace, NCNAME_AT, QNAME_AT, splitQName } from './chars.ts';
import { XML_ERROR, XmlError } from './errors.ts';
import { decodeCharacterData, prepareInput, readDeclaration } from './parse-input.ts';
import { NamespaceScope } from './parse-namespaces.ts';
import type { RawAttribute } from './parse-namespaces.ts';
import type { XmlDocument, XmlElement, XmlLimits, XmlMisc, XmlNamespaceDeclaration, XmlNode } from './types.ts';
import { DEFAULT_XML_LIMITS } from './types.ts';

export { XmlError, XML_ERROR } from './errors.ts';
export type { XmlErrorCode } from './errors.ts';

interface OpenElement {
  readonly element: XmlElement;
  readonly children: XmlNode[];
  readonly declared: readonly XmlNamespaceDeclaration[];
  text: string[];
}

export function parseXml(input: string | Uint8Array, limits: Partial<XmlLimits> = {}): XmlDocument {
  const parser = new Parser(input, { ...DEFAULT_XML_LIMITS, ...limits });
  return parser.parseDocument();
}

class Parser {
  private readonly text: string;
  private readonly limits: XmlLimits;
  private pos = 0;
  private nodeCount = 0;
  private readonly open: OpenElement[] = [];
  private readonly scope = new NamespaceScope();

  constructor(input: string | Uint8Array, limits: XmlLimits) {
    this.limits = limits;
    this.text = prepareInput(input, limits.maxBytes);
  }

  parseDocument(): XmlDocument {
    const { text } = this;
    const { declaration, end } = readDeclaration(text);
    this.pos = end;
    const prolog: XmlMisc[] = [];
    const epilog: XmlMisc[] = [];
    let root: XmlElement | undefined;
    let rootClose = -1;
    let rootSelfClosing = false;

    while (this.pos < text.length) {
      const outside = root === undefined ? prolog : epilog;
      if (text.charCodeAt(this.pos) !== 0x3c /* < */) {
        const next = text.indexOf('<', this.pos);
        const stop = next < 0 ? text.length : next;
        if (this.open.length === 0) this.requireWhitespace(this.pos, stop);
        else this.characterData(this.pos, stop);
        this.pos = stop;
      } else if (text.startsWith('<?', this.pos)) {
        const pi = this.processingInstruction();
        if (this.open.length === 0) outside.push(pi);
        else this.appendChild(pi);
      } else if (text.startsWith('<!--', this.pos)) {
        const comment = this.comment();
        if (this.open.length === 0) outside.push(comment);
        else this.appendChild(comment);
      } else if (text.startsWith('<![CDATA[', this.pos)) {
        if (this.open.length === 0) this.fail(XML_ERROR.MALFORMED, 'CDATA section outside the root element');
        this.cdata();
      } else if (text.startsWith('<!DOCTYPE', this.pos)) {
        this.fail(XML_ERROR.DTD_FORBIDDEN, 'document type declarations (<!DOCTYPE) are not accepted');
      } else if (text.startsWith('<!', this.pos)) {
        this.fail(XML_ERROR.MALFORMED, "unknown markup starting with '<!'");
      } else if (text.startsWith('</', this.pos)) {
        const closeAt = this.pos;
        this.endTag();
        if (this.open.length === 0) rootClose = closeAt;
      } else {
        if (this.open.length === 0 && root !== undefined) this.fail(XML_ERROR.MALFORMED, 'content after the root element');
        const started = this.startTag();
        if (root === undefined) {
          root = started.element;
          if (started.selfClosing) {
            rootClose = started.closeAt;
            rootSelfClosing = true;
          }
        }
      }
    }
    if (this.open.length > 0) {
      const unclosed = this.open[this.open.length - 1];
      this.fail(XML_ERROR.MALFORMED, `element <${unclosed?.element.name ?? ''}> is not closed`);
    }
    if (root === undefined) this.fail(XML_ERROR.MALFORMED, 'document has no root element');
    return { declaration, prolog, root, epilog, source: { text, bodyStart: end, rootClose, rootSelfClosing } };
  }

  private fail(code: XmlError['code'], message: string, at: number = this.pos): never {
    throw new XmlError(code, message, at);
  }

  private countNode(): void {
    this.nodeCount++;
    if (this.nodeCount > this.limits.maxNodes) this.fail(XML_ERROR.TOO_MANY_NODES, `more than ${this.limits.maxNodes} nodes`);
  }

  private requireWhitespace(from: number, to: number): void {
    for (let i = from; i < to; i++) {
      if (!isXmlSpace(this.text.charCodeAt(i))) this.fail(XML_ERROR.MALFORMED, 'text outside the root element', i);
    }
  }

  private skipWhitespace(): boolean {
    const start = this.pos;
    while (this.pos < this.text.length && isXmlSpace(this.text.charCodeAt(this.pos))) this.pos++;
    return this.pos > start;
  }

  private expect(literal: string, what: string): void {
    if (!this.text.startsWith(literal, this.pos)) this.fail(XML_ERROR.MALFORMED, `expected ${what}`);
    this.pos += literal.length;
  }

  private readQName(what: string): string {
    QNAME_AT.lastIndex = this.pos;
    const match = QNAME_AT.exec(this.text);
    if (match === null) this.fail(XML_ERROR.MALFORMED, `expected ${what} name`);
    this.pos += match[0].length;
    if (this.text.charCodeAt(this.pos) === 0x3a /* : */) this.fail(XML_ERROR.NAMESPACE, `"${match[0]}:" is not a valid qualified name`);
    return match[0];
  }

  private top(): OpenElement {
    const current = this.open[this.open.length - 1];
    if (current === undefined) throw new XmlError(XML_ERROR.MALFORMED, 'internal: no open element');
    return current;
  }

  private flushText(current: OpenElement): void {
    if (current.text.length === 0) return;
    const value = current.text.join('');
    current.text = [];
    this.countNode();
    current.children.push({ kind: 'text', value });
  }

  private appendChild(node: XmlNode): void {
    const current = this.top();
    this.flushText(current);
    current.children.push(node);
  }

  private characterData(from: number, to: number): void {
    const raw = this.text.slice(from, to);
    const cdataEnd = raw.indexOf(']]>');
    if (cdataEnd >= 0) this.fail(XML_ERROR.MALFORMED, "']]>' is not allowed in character data", from + cdataEnd);
    this.top().text.push(decodeCharacterData(raw, from, false));
  }

  private cdata(): void {
    const start = this.pos + '<![CDATA['.length;
    const end = this.text.indexOf(']]>', start);
    if (end < 0) this.fail(XML_ERROR.MALFORMED, 'unterminated CDATA section');
    this.top().text.push(this.text.slice(start, end));
    this.pos = end + 3;
  }

  private comment(): XmlMisc {
    const start = this.pos + 4;
    const end = this.text.indexOf('-->', start);
    if (end < 0) this.fail(XML_ERROR.MALFORMED, 'unterminated comment');
    const value = this.text.slice(start, end);
    if (value.includes('--') || value.endsWith('-')) this.fail(XML_ERROR.MALFORMED, "'--' is not allowed inside a comment");
    this.countNode();
    this.pos = end + 3;
    return { kind: 'comment', value };
  }

  private processingInstruction(): XmlMisc {
    this.pos += 2;
    NCNAME_AT.lastIndex = this.pos;
    const match = NCNAME_AT.exec(this.text);
    if (match === null) this.fail(XML_ERROR.MALFORMED, 'expected a processing instruction target');
    const target = match[0];
    if (target.toLowerCase() === 'xml') this.fail(XML_ERROR.MALFORMED, 'the XML declaration is only allowed at the very start');
    this.pos += target.length;
    let data = '';
    if (!this.text.startsWith('?>', this.pos)) {
      if (!this.skipWhitespace()) this.fail(XML_ERROR.MALFORMED, 'expected whitespace after the processing instruction target');
      const end = this.text.indexOf('?>', this.pos);
      if (end < 0) this.fail(XML_ERROR.MALFORMED, 'unterminated processing instruction');
      data = this.text.slice(this.pos, end);
      this.pos = end;
    }
    this.pos += 2;
    this.countNode();
    return { kind: 'pi', target, data };
  }

  private endTag(): void {
    const at = this.pos;
    this.pos += 2;
    const name = this.readQName('end tag');
    this.skipWhitespace();
    this.expect('>', `'>' to close </${name}`);
    const current = this.open[this.open.length - 1];
    if (current === undefined) this.fail(XML_ERROR.MALFORMED, `end tag </${name}> without a start tag`, at);
    if (current.element.name !== name) {
      this.fail(XML_ERROR.MALFORMED, `end tag </${name}> does not match <${current.element.name}>`, at);
    }
    this.closeElement(current);
  }

  private closeElement(current: OpenElement): void {
    this.flushText(current);
    this.open.pop();
    this.scope.release(current.declared);
  }

  private readAttributes(): { attributes: RawAttribute[]; selfClosing: boolean; closeAt: number } {
    const attributes: RawAttribute[] = [];
    for (;;) {
      const spaced = this.skipWhitespace();
      const closeAt = this.pos;
      if (this.text.startsWith('>', this.pos)) {
        this.pos += 1;
        return { attributes, selfClosing: false, closeAt };
      }
      if (this.text.startsWith('/>', this.pos)) {
        this.pos += 2;
        return { attributes, selfClosing: true, closeAt };
      }
      if (this.pos >= this.text.length) this.fail(XML_ERROR.MALFORMED, 'unterminated start tag');
      if (!spaced) this.fail(XML_ERROR.MALFORMED, 'expected whitespace before an attribute');
      if (attributes.length >= this.limits.maxAttributes) {
        this.fail(XML_ERROR.TOO_MANY_ATTRIBUTES, `more than ${this.limits.maxAttributes} attributes on one element`);
      }
      const offset = this.pos;
      const name = this.readQName('attribute');
      this.skipWhitespace();
      this.expect('=', `'=' after attribute ${name}`);
      this.skipWhitespace();
      const quote = this.text[this.pos];
      if (quote !== '"' && quote !== "'") this.fail(XML_ERROR.MALFORMED, `attribute ${name} value must be quoted`);
      const end = this.text.indexOf(quote, this.pos + 1);
      if (end < 0) this.fail(XML_ERROR.MALFORMED, `unterminated value of attribute ${name}`);
      const raw = this.text.slice(this.pos + 1, end);
      const lt = raw.indexOf('<');
      if (lt >= 0) this.fail(XML_ERROR.MALFORMED, `'<' is not allowed in the value of attribute ${name}`, this.pos + 1 + lt);
      const value = decodeCharacterData(raw, this.pos + 1, true);
      this.pos = end + 1;
      attributes.push({ name, value, offset });
    }
  }

  private startTag(): { element: XmlElement; selfClosing: boolean; closeAt: number } {
    const at = this.pos;
    if (this.open.length >= this.limits.maxDepth) this.fail(XML_ERROR.TOO_DEEP, `elements nested deeper than ${this.limits.maxDepth}`);
    this.pos += 1;
    const name = this.readQName('element');
    const { attributes: raw, selfClosing, closeAt } = this.readAttributes();
    const declared = this.scope.declare(raw);
    const { prefix, localName } = splitQName(name);
    if (prefix === 'xmlns') this.fail(XML_ERROR.NAMESPACE, `element name ${name} uses the reserved prefix xmlns`, at);
    const namespaceURI = this.scope.resolve(prefix, at);
    const parentOpen = this.open[this.open.length - 1];
    const children: XmlNode[] = [];
    const element: XmlElement = {
      kind: 'element',
      name,
      prefix,
      localName,
      namespaceURI,
      attributes: this.scope.attributes(raw),
      namespaceDeclarations: declared,
      children,
      parent: parentOpen?.element ?? null,
    };
    this.countNode();
    if (parentOpen !== undefined) this.appendChild(element);
    const entry: OpenElement = { element, children, declared, text: [] };
    this.open.push(entry);
    if (selfClosing) this.closeElement(entry);
    return { element, selfClosing, closeAt };
  }
}
