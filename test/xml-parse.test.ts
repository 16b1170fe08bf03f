import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { el, serializeXml } from '../src/xml/build.ts';
import { parseXml, XML_ERROR, XmlError } from '../src/xml/parse.ts';
import { childElement, childElementsNamed, elementChildren, findPath, inScopeNamespaces, textAt, textContent } from '../src/xml/tree.ts';
import type { XmlElement } from '../src/xml/types.ts';

function assertXmlError(run: () => unknown, code: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof XmlError, `expected XmlError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

function only<T>(value: T | undefined): T {
  assert.ok(value !== undefined);
  return value;
}

describe('parseXml', () => {
  it('reads the declaration, elements, attributes, text and namespaces', () => {
    const doc = parseXml(
      '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n<ECF xmlns="urn:ecf" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
        "xsi:nil='false' Id=\"x\"><Encabezado><Version>1.0</Version></Encabezado></ECF>",
    );
    assert.deepEqual(doc.declaration, { version: '1.0', encoding: 'utf-8', standalone: false });
    assert.equal(doc.root.localName, 'ECF');
    assert.equal(doc.root.namespaceURI, 'urn:ecf');
    assert.deepEqual(doc.root.namespaceDeclarations, [
      { prefix: '', uri: 'urn:ecf' },
      { prefix: 'xsi', uri: 'http://www.w3.org/2001/XMLSchema-instance' },
    ]);
    assert.deepEqual(
      doc.root.attributes.map((a) => [a.name, a.prefix, a.localName, a.namespaceURI, a.value]),
      [
        ['xsi:nil', 'xsi', 'nil', 'http://www.w3.org/2001/XMLSchema-instance', 'false'],
        ['Id', '', 'Id', '', 'x'],
      ],
    );
    const version = only(findPath(doc.root, ['Encabezado', 'Version']));
    assert.equal(version.namespaceURI, 'urn:ecf');
    assert.equal(version.parent?.localName, 'Encabezado');
    assert.equal(textContent(version), '1.0');
  });

  it('resolves prefixes, default namespace undeclaration and in-scope namespaces', () => {
    const doc = parseXml('<a xmlns="urn:a" xmlns:p="urn:p"><p:b><c xmlns=""><p:d/></c></p:b></a>');
    const b = only(childElement(doc.root, 'b'));
    const c = only(childElement(b, 'c'));
    const d = only(childElement(c, 'd'));
    assert.equal(b.prefix, 'p');
    assert.equal(b.namespaceURI, 'urn:p');
    assert.equal(c.namespaceURI, '');
    assert.equal(d.namespaceURI, 'urn:p');
    assert.deepEqual(
      [...inScopeNamespaces(c)].sort(),
      [
        ['p', 'urn:p'],
        ['xml', 'http://www.w3.org/XML/1998/namespace'],
      ],
    );
    assert.equal(inScopeNamespaces(b).get(''), 'urn:a');
  });

  it('merges CDATA and text, expands references and normalises line ends', () => {
    const doc = parseXml('<a>x &lt;&amp;&gt;&quot;&apos; &#65;&#x1F600;<![CDATA[<raw>&amp;]]>\r\nend\r</a>');
    assert.equal(doc.root.children.length, 1);
    assert.equal(textContent(doc.root), 'x <&>"\' A\u{1F600}<raw>&amp;\nend\n');
  });

  it('normalises attribute whitespace but keeps whitespace written as references', () => {
    const doc = parseXml('<a v="one\ttwo\r\nthree\nfour&#9;&#10;&#13;end"/>');
    assert.equal(doc.root.attributes[0]?.value, 'one two three four\t\n\rend');
  });

  it('keeps comments and processing instructions in place', () => {
    const doc = parseXml('<!--before--><?style href="x"?><a><!-- in --><?pi?>t</a><!--after-->');
    assert.deepEqual(doc.prolog, [
      { kind: 'comment', value: 'before' },
      { kind: 'pi', target: 'style', data: 'href="x"' },
    ]);
    assert.deepEqual(doc.root.children, [{ kind: 'comment', value: ' in ' }, { kind: 'pi', target: 'pi', data: '' }, { kind: 'text', value: 't' }]);
    assert.deepEqual(doc.epilog, [{ kind: 'comment', value: 'after' }]);
  });

  it('accepts UTF-8 buffers with and without a BOM', () => {
    const xml = '<a>Ñoño</a>';
    assert.equal(textContent(parseXml(Buffer.from(xml, 'utf8')).root), 'Ñoño');
    assert.equal(textContent(parseXml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)])).root), 'Ñoño');
    assert.equal(textContent(parseXml(`\uFEFF${xml}`).root), 'Ñoño');
  });

  it('records where the root closes so a signer can append to it', () => {
    const open = parseXml('<?xml version="1.0"?>\n<a><b/></a>\n');
    assert.equal(open.source.bodyStart, 21);
    assert.equal(open.source.text.slice(open.source.rootClose), '</a>\n');
    assert.equal(open.source.rootSelfClosing, false);
    const empty = parseXml('<a x="1" />');
    assert.equal(empty.source.text.slice(empty.source.rootClose), '/>');
    assert.equal(empty.source.rootSelfClosing, true);
  });
});

describe('parseXml refuses', () => {
  const cases: readonly (readonly [string, string | Buffer, string])[] = [
    [
      'a DTD with an entity expansion bomb',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><lolz>&lol3;</lolz>',
      XML_ERROR.DTD_FORBIDDEN,
    ],
    ['an external entity (XXE)', '<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>', XML_ERROR.DTD_FORBIDDEN],
    ['an external DTD', '<!DOCTYPE r SYSTEM "http://example.com/r.dtd"><r/>', XML_ERROR.DTD_FORBIDDEN],
    ['an undefined entity', '<r>&nbsp;</r>', XML_ERROR.ENTITY_FORBIDDEN],
    ['an undefined entity in an attribute', '<r a="&xxe;"/>', XML_ERROR.ENTITY_FORBIDDEN],
    ['a bare ampersand', '<r>a & b</r>', XML_ERROR.MALFORMED],
    ['a character reference to NUL', '<r>&#0;</r>', XML_ERROR.INVALID_CHAR],
    ['a character reference beyond Unicode', '<r>&#x110000;</r>', XML_ERROR.INVALID_CHAR],
    ['a character reference to a surrogate', '<r>&#xD800;</r>', XML_ERROR.INVALID_CHAR],
    ['a control character', '<r>\u0001</r>', XML_ERROR.INVALID_CHAR],
    ['a lone surrogate', '<r>\uD800</r>', XML_ERROR.INVALID_CHAR],
    ['an unclosed tag', '<a><b></a>', XML_ERROR.MALFORMED],
    ['an unclosed root', '<a><b></b>', XML_ERROR.MALFORMED],
    ['an unterminated start tag', '<a x="1"', XML_ERROR.MALFORMED],
    ['a stray end tag', '<a></a></b>', XML_ERROR.MALFORMED],
    ['duplicate attributes', '<a x="1" x="2"/>', XML_ERROR.MALFORMED],
    ['attributes with the same expanded name', '<a xmlns:p="urn:x" xmlns:q="urn:x" p:x="1" q:x="2"/>', XML_ERROR.NAMESPACE],
    ['duplicate namespace declarations', '<a xmlns:p="urn:x" xmlns:p="urn:y"/>', XML_ERROR.MALFORMED],
    ['an undeclared element prefix', '<p:a/>', XML_ERROR.NAMESPACE],
    ['an undeclared attribute prefix', '<a p:x="1"/>', XML_ERROR.NAMESPACE],
    ['undeclaring a prefix', '<a xmlns:p=""/>', XML_ERROR.NAMESPACE],
    ['rebinding the xml prefix', '<a xmlns:xml="urn:other"/>', XML_ERROR.NAMESPACE],
    ['a malformed qualified name', '<a:b:c xmlns:a="urn:a"/>', XML_ERROR.NAMESPACE],
    ['text before the root', 'hello<a/>', XML_ERROR.MALFORMED],
    ['text after the root', '<a/>hello', XML_ERROR.MALFORMED],
    ['a second root element', '<a/><b/>', XML_ERROR.MALFORMED],
    ['no root element', '<?xml version="1.0"?><!-- nothing -->', XML_ERROR.MALFORMED],
    ['an empty document', '', XML_ERROR.MALFORMED],
    ["'<' in an attribute value", '<a x="1<2"/>', XML_ERROR.MALFORMED],
    ['an unquoted attribute', '<a x=1/>', XML_ERROR.MALFORMED],
    ['attributes without whitespace between them', '<a x="1"y="2"/>', XML_ERROR.MALFORMED],
    ["']]>' in text", '<a>]]></a>', XML_ERROR.MALFORMED],
    ["'--' inside a comment", '<a><!-- a -- b --></a>', XML_ERROR.MALFORMED],
    ['CDATA outside the root', '<![CDATA[x]]><a/>', XML_ERROR.MALFORMED],
    ['an XML declaration that is not at the start', ' <?xml version="1.0"?><a/>', XML_ERROR.MALFORMED],
    ['XML 1.1', '<?xml version="1.1"?><a/>', XML_ERROR.MALFORMED],
    ['a declaration naming another encoding', '<?xml version="1.0" encoding="ISO-8859-1"?><a/>', XML_ERROR.ENCODING],
    ['a buffer that is not UTF-8', Buffer.from([0x3c, 0x61, 0x3e, 0xd1, 0x3c, 0x2f, 0x61, 0x3e]), XML_ERROR.ENCODING],
    ['a UTF-16 buffer', Buffer.from('\uFEFF<a/>', 'utf16le'), XML_ERROR.ENCODING],
  ];
  for (const [name, input, code] of cases) {
    it(`${name} with ${code}`, () => assertXmlError(() => parseXml(input), code));
  }

  it('100k-deep nesting quickly with XML_TOO_DEEP and no stack overflow', () => {
    const deep = '<a>'.repeat(100_000) + '</a>'.repeat(100_000);
    const started = performance.now();
    assertXmlError(() => parseXml(deep), XML_ERROR.TOO_DEEP);
    assert.ok(performance.now() - started < 1000);
  });

  it('nesting one level past maxDepth but not at maxDepth', () => {
    const nest = (depth: number): string => '<a>'.repeat(depth) + '</a>'.repeat(depth);
    assert.equal(parseXml(nest(100)).root.localName, 'a');
    assertXmlError(() => parseXml(nest(101)), XML_ERROR.TOO_DEEP);
    assertXmlError(() => parseXml(nest(6), { maxDepth: 5 }), XML_ERROR.TOO_DEEP);
  });

  it('input over maxBytes, counting UTF-8 bytes, as string or buffer', () => {
    const big = `<a>${'x'.repeat(5 * 1024 * 1024)}</a>`;
    assertXmlError(() => parseXml(big), XML_ERROR.TOO_LARGE);
    assertXmlError(() => parseXml(Buffer.from(big)), XML_ERROR.TOO_LARGE);
    // Ten characters but twenty bytes.
    assertXmlError(() => parseXml(`<a>${'ñ'.repeat(7)}</a>`, { maxBytes: 19 }), XML_ERROR.TOO_LARGE);
    assert.equal(parseXml('<a>ok</a>', { maxBytes: 9 }).root.localName, 'a');
  });

  it('more nodes than maxNodes', () => {
    assertXmlError(() => parseXml(`<a>${'<b/>'.repeat(10)}</a>`, { maxNodes: 10 }), XML_ERROR.TOO_MANY_NODES);
    assert.equal(parseXml(`<a>${'<b/>'.repeat(9)}</a>`, { maxNodes: 10 }).root.children.length, 9);
  });

  it('more attributes than maxAttributes on one element', () => {
    const attributes = (n: number): string => Array.from({ length: n }, (_, i) => ` a${i}="${i}"`).join('');
    assertXmlError(() => parseXml(`<a${attributes(257)}/>`), XML_ERROR.TOO_MANY_ATTRIBUTES);
    assert.equal(parseXml(`<a${attributes(256)}/>`).root.attributes.length, 256);
  });
});

describe('parseXml on hostile input', () => {
  it('throws nothing but XmlError on random bytes and mutated documents', () => {
    const valid = Buffer.from('<?xml version="1.0"?><a xmlns:p="urn:p" p:x="1&amp;2"><b><![CDATA[c]]></b><!--d--><?e f?>&#65;</a>');
    for (let i = 0; i < 3000; i++) {
      let input: Buffer;
      if (i % 2 === 0) {
        input = randomBytes(1 + (i % 200));
      } else {
        input = Buffer.from(valid);
        for (let j = 0; j < 1 + (i % 5); j++) input[Math.floor(Math.random() * input.length)] = Math.floor(Math.random() * 256);
      }
      try {
        parseXml(i % 4 === 1 ? input.toString('latin1') : input);
      } catch (error) {
        assert.ok(error instanceof XmlError, `non-XmlError for ${input.toString('hex')}: ${String(error)}`);
      }
    }
  });

  it('stays fast on inputs built to trigger backtracking or rescanning', () => {
    const size = 1024 * 1024;
    const inputs = [
      `<a>${'&'.repeat(size)}</a>`,
      `<a>${'&#'.repeat(size / 2)}`,
      `<a x="${'&amp;'.repeat(size / 5)}`,
      `<a${' '.repeat(size)}`,
      `<?xml version="1.0"${' '.repeat(size)}x?><a/>`,
      `<a>${'<!-'.repeat(size / 3)}</a>`,
      `<a>${'<b>'.repeat(99)}${']]'.repeat(size / 2)}`,
      `<a ${'x'.repeat(size)}`,
      `<a>${'<?p '.repeat(size / 4)}`,
    ];
    for (const input of inputs) {
      const started = performance.now();
      assert.throws(() => parseXml(input), XmlError);
      assert.ok(performance.now() - started < 2000, `slow on ${input.slice(0, 20)}`);
    }
  });
});

describe('tree helpers', () => {
  const doc = parseXml('<ECF><Encabezado><IdDoc><eNCF>E310000000001</eNCF></IdDoc></Encabezado><Item n="1"/><Item n="2"/>x<Other/></ECF>');

  it('follow paths by local name', () => {
    assert.equal(textAt(doc.root, ['Encabezado', 'IdDoc', 'eNCF']), 'E310000000001');
    assert.equal(findPath(doc.root, ['Encabezado', 'Missing', 'eNCF']), undefined);
    assert.equal(textAt(doc.root, ['Nope']), undefined);
  });

  it('list children by name and all element children', () => {
    assert.deepEqual(
      childElementsNamed(doc.root, 'Item').map((item: XmlElement) => item.attributes[0]?.value),
      ['1', '2'],
    );
    assert.deepEqual(
      elementChildren(doc.root).map((child) => child.localName),
      ['Encabezado', 'Item', 'Item', 'Other'],
    );
    assert.equal(childElement(doc.root, 'Item', 'urn:other-namespace'), undefined);
  });
});

describe('el and serializeXml', () => {
  it('write compact XML with escaping and an optional declaration', () => {
    const tree = el(
      'ECF',
      { 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', note: 'a "quoted" <tag> & \'x\'\tz\n', skipped: undefined },
      el('RazonSocial', 'Ñoño & Cía <S.R.L.>'),
      el('Monto', 100.5),
      false,
      [el('A', 'x'), null, el('B')],
    );
    assert.equal(
      serializeXml(tree, { declaration: true }),
      '<?xml version="1.0" encoding="utf-8"?><ECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
        'note="a &quot;quoted&quot; &lt;tag&gt; &amp; \'x\'&#x9;z&#xA;">' +
        '<RazonSocial>Ñoño &amp; Cía &lt;S.R.L.&gt;</RazonSocial><Monto>100.5</Monto><A>x</A><B></B></ECF>',
    );
    assert.equal(serializeXml(el('a', 'b'), { declaration: false }), '<a>b</a>');
  });

  it('round-trips text and attribute values through the parser exactly', () => {
    const text = 'tabs\tlines\ncarriage\rreturns & <markup> "quotes" \u{1F600}';
    const doc = parseXml(serializeXml(el('a', { v: text }, text), { declaration: true }));
    assert.equal(doc.root.attributes[0]?.value, text);
    assert.equal(textContent(doc.root), text);
  });

  it('refuses invalid names and characters XML cannot carry', () => {
    assertXmlError(() => el('1bad'), XML_ERROR.INVALID_NAME);
    assertXmlError(() => el('a', { 'b c': '1' }), XML_ERROR.INVALID_NAME);
    assertXmlError(() => el('a><script', 'x'), XML_ERROR.INVALID_NAME);
    assertXmlError(() => serializeXml(el('a', 'nul\u0000'), { declaration: false }), XML_ERROR.INVALID_CHAR);
    assertXmlError(() => serializeXml(el('a', { v: '\uDC00' }), { declaration: false }), XML_ERROR.INVALID_CHAR);
  });
});
