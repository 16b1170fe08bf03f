import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { canonicalizeDocument, canonicalizeElement } from '../src/xml/c14n.ts';
import { parseXml, XmlError } from '../src/xml/parse.ts';
import { findPath } from '../src/xml/tree.ts';

const dir = mkdtempSync(join(tmpdir(), 'xml-c14n-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileCounter = 0;
/** libxml2's C14N 1.0 (xmllint --c14n always keeps comments). */
function xmllintC14n(source: string): string {
  const file = join(dir, `doc-${fileCounter++}.xml`);
  writeFileSync(file, source, 'utf8');
  return execFileSync('xmllint', ['--c14n', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// Comments in these fixtures never sit inside CDATA or attribute values, so a regex removes them safely.
function withoutComments(source: string): string {
  return source.replace(/<!--[\s\S]*?-->/g, '');
}

const FIXTURES: Readonly<Record<string, string>> = {
  'namespaces declared on ancestors and redundantly redeclared':
    '<a xmlns:p="urn:one" xmlns:q="urn:q"><b xmlns:p="urn:one"><p:c xmlns:p="urn:two" q:x="1"><p:d xmlns:p="urn:one"/></p:c></b></a>',
  'default namespace declared, undeclared and redeclared':
    '<a xmlns="urn:d"><b xmlns=""><c xmlns=""><e xmlns="urn:d"/></c></b><f xmlns="urn:d"/><g xmlns="urn:other"><h xmlns="urn:d"/></g></a>',
  'undeclaring a default namespace that was never declared': '<a xmlns=""><b xmlns=""/><c/></a>',
  'attribute and namespace ordering':
    '<a xmlns:zz="http://z.example/" xmlns:aa="http://a.example/" xmlns="http://d.example/" zz:k="1" aa:k="2" b="3" a="4" xml:lang="es" aa:a="5"/>',
  'attribute order by code point beyond the BMP': '<a b\u{10000}="1" b\uFFFD="2" b\u00E9="3" bz="4"/>',
  'escaping in text and attributes':
    '<a t="&lt;&amp;&gt;&quot;\'" u=\'"double" &apos;single&apos;\' v="tab&#9;lf&#10;cr&#13;">&lt;&amp;&gt;"\' &#13; done</a>',
  'CDATA sections become escaped text': '<a><![CDATA[<b>&amp; ]] > "q" \'s\']]>tail<![CDATA[]]></a>',
  'character references are expanded': '<a x="&#x10000;&#169;">&#65;&#x42;&#xe9;&#x1D11E;&#160;</a>',
  'whitespace inside and outside the root':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n\n<a   x = "1"\n   y="a\tb\nc"  >\n  <b>  text  </b>\n\t<c/>\n</a>\n\n',
  'CRLF and lone CR line endings are normalised': '<a x="1\r\n2">one\r\ntwo\rthree\r\n</a>\r\n',
  'processing instructions and comments around and inside the root':
    '<?xml version="1.0"?>\n<!-- first -->\n<?pi-one   data with  spaces  ?>\n<?pi-two?><!--second--><a><?inner x?><!--inner--><b/><!----></a><!--after-->\n<?last?>\n',
  'empty elements become start-end pairs': '<a><b/><c></c><d x="1" /></a>',
  'non-ASCII names and text': '<Ñandú año="2024" xmlns:ñ="urn:example:n"><ñ:pájaro>€ 𝄞 Ñoño &amp; Cía &lt;S.R.L.&gt;</ñ:pájaro></Ñandú>',
  'explicit xml prefix declaration is not rendered':
    '<a xmlns:xml="http://www.w3.org/XML/1998/namespace" xml:space="preserve"><b xml:lang="en"/></a>',
  'prefixed and default namespaces on the same element':
    '<p:root xmlns:p="urn:p" xmlns="urn:d" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="p:T"><child p:attr="v"/></p:root>',
  'e-CF like document': '<ECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF></IdDoc><Emisor><RazonSocialEmisor>Ñoño &amp; Cía &lt;S.R.L.&gt;</RazonSocialEmisor></Emisor></Encabezado><FechaHoraFirma>01-01-2025 10:00:00</FechaHoraFirma></ECF>',
};

describe('canonicalizeDocument matches xmllint --c14n', () => {
  for (const [name, source] of Object.entries(FIXTURES)) {
    it(`matches with comments: ${name}`, () => {
      assert.equal(canonicalizeDocument(parseXml(source), { withComments: true }), xmllintC14n(source));
    });
    it(`matches without comments: ${name}`, () => {
      assert.equal(canonicalizeDocument(parseXml(source)), xmllintC14n(withoutComments(source)));
    });
  }
});

describe('canonicalizeDocument', () => {
  it('drops comments and puts PIs outside the root on their own lines', () => {
    const doc = parseXml('<?xml version="1.0"?><!--a--><?p1 x?>\n<r><!--in--><?p2?></r><!--z--><?p3  y ?>');
    assert.equal(canonicalizeDocument(doc), '<?p1 x?>\n<r><?p2?></r>\n<?p3 y ?>');
  });

  it('fails on relative namespace URIs, as the spec and libxml2 do', () => {
    const source = '<a xmlns:p="relative/path"><p:b/></a>';
    assert.throws(() => canonicalizeDocument(parseXml(source)), (error: unknown) => error instanceof XmlError && error.code === 'XML_NAMESPACE');
    assert.throws(() => xmllintC14n(source));
  });

  it('leaves out an excluded element subtree and nothing else', () => {
    const doc = parseXml('<r xmlns:a="urn:a">x<s xmlns="urn:s"><t>secret</t></s>y</r>');
    const excluded = findPath(doc.root, ['s']);
    assert.ok(excluded);
    assert.equal(canonicalizeDocument(doc, { exclude: excluded }), '<r xmlns:a="urn:a">xy</r>');
  });
});

describe('canonicalizeElement (a subtree in its document context)', () => {
  const source =
    '<root xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:p="urn:p" xml:lang="es" xml:space="preserve" other="no">' +
    '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#" xml:lang="en">' +
    '<SignedInfo a="1"><Child xmlns:p="urn:p" xmlns:q="urn:q"/><Inner xmlns=""/></SignedInfo></Signature></root>';

  it('renders ancestor namespaces on the apex and inherits the nearest xml:* attributes', () => {
    const signedInfo = findPath(parseXml(source).root, ['Signature', 'SignedInfo']);
    assert.ok(signedInfo);
    assert.equal(
      canonicalizeElement(signedInfo),
      '<SignedInfo xmlns="http://www.w3.org/2000/09/xmldsig#" xmlns:p="urn:p" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"' +
        ' a="1" xml:lang="en" xml:space="preserve">' +
        '<Child xmlns:q="urn:q"></Child><Inner xmlns=""></Inner></SignedInfo>',
    );
  });

  it('does not emit xmlns="" on an apex whose default namespace is empty', () => {
    const inner = findPath(parseXml('<a xmlns="urn:a"><b xmlns=""><c/></b></a>').root, ['b', 'c']);
    assert.ok(inner);
    assert.equal(canonicalizeElement(inner), '<c></c>');
  });

  it('equals the whole-document form when the apex is the root', () => {
    const doc = parseXml(source);
    assert.equal(canonicalizeElement(doc.root), canonicalizeDocument(doc));
  });
});
