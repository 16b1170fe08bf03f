import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, randomInt, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { canonicalizeDocument, canonicalizeElement } from '../src/xml/c14n.ts';
import { parseXml, XML_ERROR, XmlError } from '../src/xml/parse.ts';
import { elementChildren, findPath, textAt } from '../src/xml/tree.ts';
import { signBuiltWithValue, signedInfoInPlace, signedInfoReadBack, signXml, signXmlWithValue, verifyXml, XMLDSIG } from '../src/xml/xmldsig.ts';
import { el, serializeXml } from '../src/xml/build.ts';
import { buildEcfTree } from '../src/ecf/xml/build-ecf.ts';
import { validateEcf } from '../src/ecf/validation/index.ts';
import { ECF_TIPOS } from '../src/ecf/ecf-types.ts';
import { sampleEcfWithItems } from './fixtures/ecf.ts';
import { signatureFragment } from '../src/xml/xmldsig-profile.ts';

let dir = '';
let keyFile = '';
let certFile = '';
let key: KeyObject;
let certificate: X509Certificate;
let fileCounter = 0;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'xmldsig-'));
  keyFile = join(dir, 'key.pem');
  certFile = join(dir, 'cert.pem');
  const made = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-subj', '/CN=Prueba e-CF/O=Ñoño SRL/C=DO', '-days', '30'],
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, made.stderr);
  key = createPrivateKey(readFileSync(keyFile));
  certificate = new X509Certificate(readFileSync(certFile));
});

after(() => rmSync(dir, { recursive: true, force: true }));

function tempFile(content: string): string {
  const file = join(dir, `doc-${fileCounter++}.xml`);
  writeFileSync(file, content, 'utf8');
  return file;
}

/** xmlsec1 --verify --trusted-pem cert.pem file.xml; its exit status. */
function xmlsecVerify(xml: string): number | null {
  return spawnSync('xmlsec1', ['--verify', '--trusted-pem', certFile, tempFile(xml)], { encoding: 'utf8' }).status;
}

/** xmlsec1 --sign --privkey-pem key.pem,cert.pem --output out.xml template.xml */
function xmlsecSign(template: string): string {
  const output = join(dir, `signed-${fileCounter++}.xml`);
  const run = spawnSync('xmlsec1', ['--sign', '--privkey-pem', `${keyFile},${certFile}`, '--output', output, tempFile(template)], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(output, 'utf8');
}

/** The bytes xmlsec1 digested and signed, from its debug dump. */
function xmlsecBuffers(xml: string): { preDigest: string; preSigned: string } {
  const run = spawnSync(
    'xmlsec1',
    ['--verify', '--store-references', '--store-signatures', '--print-debug', '--trusted-pem', certFile, tempFile(xml)],
    { encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  const between = (label: string): string => {
    const start = run.stdout.indexOf(`== ${label} data - start buffer:\n`);
    const end = run.stdout.indexOf(`\n== ${label} data - end buffer`);
    assert.ok(start >= 0 && end > start, `no ${label} buffer in xmlsec1 output`);
    return run.stdout.slice(start + `== ${label} data - start buffer:\n`.length, end);
  };
  return { preDigest: between('PreDigest'), preSigned: between('PreSigned') };
}

function assertValid(xml: string | Buffer): { signatureValue: string; certificate: X509Certificate } {
  const result = verifyXml(xml);
  assert.ok(result.valid, result.valid ? '' : result.reason);
  return result;
}

function assertInvalid(xml: string | Buffer, reason: RegExp): void {
  const result = verifyXml(xml);
  assert.equal(result.valid, false);
  if (!result.valid) assert.match(result.reason, reason);
}

const SIMPLE_ECF =
  '<ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF></IdDoc></Encabezado>' +
  '<FechaHoraFirma>01-04-2025 10:30:00</FechaHoraFirma></ECF>';

const NAMESPACED_ECF =
  '<?xml version="1.0" encoding="UTF-8"?>\n<ECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
  '<Encabezado><Version>1.0</Version><Emisor><RazonSocialEmisor>Ñoño &amp; Cía &lt;S.R.L.&gt;</RazonSocialEmisor>' +
  '<DireccionEmisor>Av. Núñez de Cáceres #1, Santo Domingo</DireccionEmisor></Emisor></Encabezado>' +
  '<FechaHoraFirma>01-04-2025 10:30:00</FechaHoraFirma></ECF>';

function xmlsecTemplate(content: string, rootAttributes: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<ECF${rootAttributes}>\n  ${content}\n  <Signature xmlns="${XMLDSIG.namespace}">\n` +
    `    <SignedInfo>\n      <CanonicalizationMethod Algorithm="${XMLDSIG.canonicalization}"/>\n` +
    `      <SignatureMethod Algorithm="${XMLDSIG.signatureMethod}"/>\n      <Reference URI="">\n` +
    `        <Transforms><Transform Algorithm="${XMLDSIG.envelopedSignatureTransform}"/></Transforms>\n` +
    `        <DigestMethod Algorithm="${XMLDSIG.digestMethod}"/>\n        <DigestValue/>\n      </Reference>\n    </SignedInfo>\n` +
    `    <SignatureValue/>\n    <KeyInfo><X509Data><X509Certificate/></X509Data></KeyInfo>\n  </Signature>\n</ECF>\n`
  );
}

describe('signBuiltWithValue', () => {
  it('signs a built e-CF of every type, off the event loop, to the very bytes signXmlWithValue gives for it written out, which xmlsec1 verifies', async () => {
    for (const tipo of ECF_TIPOS) {
      const body = sampleEcfWithItems(tipo, 3, { Encabezado: { IdDoc: { eNCF: `E${tipo}0000000001` }, Emisor: { RazonSocialEmisor: 'Ñoño & Cía <S.R.L.> "x"\r' } } });
      const checked = validateEcf(body);
      assert.ok(checked.ok, JSON.stringify(checked));
      const tree = buildEcfTree(tipo, checked.document.ecf, '01-04-2025 10:30:00');
      const fast = await signBuiltWithValue(tree, key, certificate);
      const slow = signXmlWithValue(serializeXml(tree, { declaration: true }), key, certificate);
      assert.equal(fast.xml, slow.xml, `e-CF ${tipo}`);
      assert.equal(fast.signatureValue, slow.signatureValue);
      assertValid(fast.xml);
      if (tipo === 31) assert.equal(xmlsecVerify(fast.xml), 0);
    }
  });

  it('writes out and parses a tree with attributes or a prefix, and refuses one that holds a Signature', async () => {
    const attributed = el('ECF', { 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', b: 'dos > uno', a: '1' }, el('Version', '1.0'));
    const fast = await signBuiltWithValue(attributed, key, certificate);
    assert.equal(fast.xml, signXmlWithValue(serializeXml(attributed, { declaration: true }), key, certificate).xml);
    assert.equal(xmlsecVerify(fast.xml), 0);
    await assert.rejects(signBuiltWithValue(el('ECF', el('Signature', 'x')), key, certificate), (e: unknown) => e instanceof XmlError && e.code === XML_ERROR.ALREADY_SIGNED);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await assert.rejects(signBuiltWithValue(el('ECF', el('Version', '1.0')), other, certificate), (e: unknown) => e instanceof XmlError && e.code === XML_ERROR.SIGNING_KEY);
  });
});

describe('signXml', () => {
  it('produces the DGII shape, accepted by xmlsec1 and verifyXml', () => {
    const signed = signXml(SIMPLE_ECF, key, certificate);
    assert.ok(signed.startsWith(`<?xml version="1.0" encoding="utf-8"?>${SIMPLE_ECF.slice(0, -'</ECF>'.length)}<Signature xmlns="${XMLDSIG.namespace}">`));
    assert.ok(signed.endsWith('</Signature></ECF>'));
    const doc = parseXml(signed);
    const children = elementChildren(doc.root);
    const signature = children[children.length - 1];
    assert.equal(signature?.localName, 'Signature');
    assert.equal(textAt(doc.root, ['Signature', 'KeyInfo', 'X509Data', 'X509Certificate']), certificate.raw.toString('base64'));
    assert.equal(findPath(doc.root, ['Signature', 'SignedInfo', 'Reference'])?.attributes[0]?.value, '');

    assert.equal(xmlsecVerify(signed), 0);
    const result = assertValid(signed);
    assert.equal(result.certificate.fingerprint256, certificate.fingerprint256);
    assert.equal(result.signatureValue, textAt(doc.root, ['Signature', 'SignatureValue']));
  });

  it('signs documents with root namespace declarations and non-ASCII text so xmlsec1 agrees byte for byte', () => {
    const signed = signXml(NAMESPACED_ECF, key, certificate);
    assert.ok(signed.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<ECF xmlns:xsi='));
    assert.equal(xmlsecVerify(signed), 0);
    assertValid(Buffer.from(signed, 'utf8'));
    const doc = parseXml(signed);
    const signature = findPath(doc.root, ['Signature']);
    const signedInfo = findPath(doc.root, ['Signature', 'SignedInfo']);
    assert.ok(signature && signedInfo);
    const { preDigest, preSigned } = xmlsecBuffers(signed);
    assert.equal(canonicalizeDocument(doc, { exclude: signature }), preDigest);
    assert.equal(canonicalizeElement(signedInfo), preSigned);
    assert.match(preSigned, /^<SignedInfo xmlns="http:\/\/www.w3.org\/2000\/09\/xmldsig#" xmlns:xsd=.* xmlns:xsi=/);
  });

  it('keeps the author text, comments and an empty root element', () => {
    const source = '<?xml version="1.0"?>\r\n<!-- head -->\r\n<ECF a="1"  b=\'2\'><X>&#65;<![CDATA[<y>]]></X></ECF>\r\n<!-- tail -->';
    const signed = signXml(source, key, certificate);
    assert.ok(signed.startsWith(`<?xml version="1.0" encoding="utf-8"?>\n<!-- head -->\n<ECF a="1"  b='2'><X>&#65;<![CDATA[<y>]]></X><Signature`));
    assert.ok(signed.endsWith('</Signature></ECF>\n<!-- tail -->'));
    assert.equal(xmlsecVerify(signed), 0);
    assertValid(signed);

    const empty = signXml('<SemillaModel />', key, certificate);
    assert.match(empty, /^<\?xml version="1.0" encoding="utf-8"\?><SemillaModel ><Signature[^]*<\/Signature><\/SemillaModel>$/);
    assert.equal(xmlsecVerify(empty), 0);
    assertValid(empty);
  });

  it('signs a root in a default namespace with xml:lang so xmlsec1 verifies it', () => {
    const signed = signXml('<ARECF xmlns="urn:example:arecf" xml:lang="es"><DetalleAcusedeRecibo><Estado>0</Estado></DetalleAcusedeRecibo></ARECF>', key, certificate);
    assert.equal(xmlsecVerify(signed), 0);
    assertValid(signed);
  });

  it('canonicalises SignedInfo in place, without reading the document back, exactly as the read-back does, and only where the root leaves nothing to inherit', () => {
    const fragment = signatureFragment('ZGlnZXN0', '', certificate.raw.toString('base64'));
    const plain = parseXml(SIMPLE_ECF);
    assert.equal(signedInfoInPlace(plain, fragment), signedInfoReadBack(plain, fragment));
    for (const inherits of [NAMESPACED_ECF, '<ARECF xmlns="urn:example:arecf"><Estado>0</Estado></ARECF>', '<ECF xml:lang="es"><A>1</A></ECF>', '<p:ECF xmlns:p="urn:p"><A>1</A></p:ECF>']) {
      assert.equal(signedInfoInPlace(parseXml(inherits), fragment), null, inherits);
    }
    // What xmlsec1 canonicalised and signed is what the fast path signed.
    const { xml, signatureValue } = signXmlWithValue(SIMPLE_ECF, key, certificate);
    assert.equal(xmlsecVerify(xml), 0);
    const placed = findPath(parseXml(xml).root, ['Signature', 'SignedInfo']);
    assert.ok(placed);
    assert.equal(xmlsecBuffers(xml).preSigned, canonicalizeElement(placed));
    assert.equal(signatureValue, textAt(parseXml(xml).root, ['Signature', 'SignatureValue']));
  });

  it('refuses a document that is already signed', () => {
    const signed = signXml(SIMPLE_ECF, key, certificate);
    assert.throws(() => signXml(signed, key, certificate), (e: unknown) => e instanceof XmlError && e.code === XML_ERROR.ALREADY_SIGNED);
    const nested = `<ECF><Inner>${signed.replace(/^<\?xml[^>]*>/, '')}</Inner></ECF>`;
    assert.throws(() => signXml(nested, key, certificate), (e: unknown) => e instanceof XmlError && e.code === XML_ERROR.ALREADY_SIGNED);
  });

  it('refuses a key that is not the certificate key, or not RSA', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    assert.throws(() => signXml(SIMPLE_ECF, other, certificate), (e: unknown) => e instanceof XmlError && e.code === XML_ERROR.SIGNING_KEY);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    assert.throws(() => signXml(SIMPLE_ECF, ec, certificate), (e: unknown) => e instanceof XmlError && e.code === XML_ERROR.SIGNING_KEY);
  });

  it('refuses unparseable input with XmlError', () => {
    assert.throws(() => signXml('<!DOCTYPE x><x/>', key, certificate), (e: unknown) => e instanceof XmlError && e.code === XML_ERROR.DTD_FORBIDDEN);
  });
});

describe('verifyXml against tampering', () => {
  it('rejects a changed text node, as xmlsec1 does', () => {
    const signed = signXml(NAMESPACED_ECF, key, certificate);
    const tampered = signed.replace('Ñoño &amp; Cía', 'Ñoña &amp; Cía');
    assert.notEqual(tampered, signed);
    assert.notEqual(xmlsecVerify(tampered), 0);
    assertInvalid(tampered, /digest mismatch/);
  });

  it('rejects a changed SignedInfo or SignatureValue, as xmlsec1 does', () => {
    const signed = signXml(SIMPLE_ECF, key, certificate);
    const digest = /<DigestValue>([^<]+)<\/DigestValue>/.exec(signed)?.[1] ?? '';
    const otherDigest = signXml(SIMPLE_ECF.replace('1.0', '1.1'), key, certificate);
    const swappedDigest = signed.replace(digest, /<DigestValue>([^<]+)<\/DigestValue>/.exec(otherDigest)?.[1] ?? '');
    const swappedDocument = swappedDigest.replace('<Version>1.0', '<Version>1.1');
    assert.notEqual(xmlsecVerify(swappedDocument), 0);
    assertInvalid(swappedDocument, /signature value does not match/);

    const value = /<SignatureValue>([^<]+)<\/SignatureValue>/.exec(signed)?.[1] ?? '';
    const flipped = value.startsWith('A') ? `B${value.slice(1)}` : `A${value.slice(1)}`;
    const badValue = signed.replace(value, flipped);
    assert.notEqual(xmlsecVerify(badValue), 0);
    assertInvalid(badValue, /signature value does not match/);
  });

  it('rejects a valid signature whose certificate was replaced by another', () => {
    const signed = signXml(SIMPLE_ECF, key, certificate);
    const otherDir = mkdtempSync(join(tmpdir(), 'xmldsig-other-'));
    try {
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(otherDir, 'k.pem'), '-out', join(otherDir, 'c.pem'), '-subj', '/CN=Other', '-days', '1']);
      assert.equal(made.status, 0);
      const other = new X509Certificate(readFileSync(join(otherDir, 'c.pem')));
      assertInvalid(signed.replace(certificate.raw.toString('base64'), other.raw.toString('base64')), /signature value does not match/);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe('verifyXml reading certificates', () => {
  it('reads a signer\'s certificate once for its documents, and each other certificate as its own', () => {
    const first = assertValid(signXml(SIMPLE_ECF, key, certificate));
    const second = assertValid(signXml(SIMPLE_ECF.replace('1.0', '1.1'), key, certificate));
    // The same object: the second document's certificate was not parsed again.
    assert.equal(second.certificate, first.certificate);

    const otherDir = mkdtempSync(join(tmpdir(), 'xmldsig-read-'));
    try {
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(otherDir, 'k.pem'), '-out', join(otherDir, 'c.pem'), '-subj', '/CN=Otro', '-days', '1']);
      assert.equal(made.status, 0);
      const otherKey = createPrivateKey(readFileSync(join(otherDir, 'k.pem')));
      const other = new X509Certificate(readFileSync(join(otherDir, 'c.pem')));
      const byOther = signXml(SIMPLE_ECF, otherKey, other);
      assert.equal(assertValid(byOther).certificate.fingerprint256, other.fingerprint256);
      // A certificate already read does not vouch for a signature its key did not make.
      assertInvalid(byOther.replace(other.raw.toString('base64'), certificate.raw.toString('base64')), /signature value does not match/);
      assert.equal(assertValid(signXml(SIMPLE_ECF, key, certificate)).certificate, first.certificate);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('does not keep a certificate larger than 8 KiB: a sender cannot fill memory with large ones', () => {
    const bigDir = mkdtempSync(join(tmpdir(), 'xmldsig-big-'));
    try {
      const names = Array.from({ length: 400 }, (_, i) => `DNS:relleno-${i}.ejemplo.do`).join(',');
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(bigDir, 'k.pem'), '-out', join(bigDir, 'c.pem'), '-subj', '/CN=Grande', '-days', '1', '-addext', `subjectAltName=${names}`]);
      assert.equal(made.status, 0, String(made.stderr));
      const big = new X509Certificate(readFileSync(join(bigDir, 'c.pem')));
      assert.ok(big.raw.length > 8192, `the certificate has ${big.raw.length} bytes`);
      const signed = signXml(SIMPLE_ECF, createPrivateKey(readFileSync(join(bigDir, 'k.pem'))), big);
      const first = assertValid(signed);
      const second = assertValid(signed);
      assert.equal(second.certificate.fingerprint256, big.fingerprint256);
      assert.notEqual(second.certificate, first.certificate);
    } finally {
      rmSync(bigDir, { recursive: true, force: true });
    }
  });
});

describe('verifyXml on documents signed by xmlsec1', () => {
  it('accepts an xmlsec1-signed template with whitespace, a root xml:lang and prefixes, and rejects it tampered', () => {
    const template = xmlsecTemplate(
      '<Encabezado>\n    <Version>1.0</Version>\n    <RazonSocial>Ñoño &amp; Cía &lt;S.R.L.&gt;</RazonSocial><!-- nota -->\n  </Encabezado>',
      ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xml:lang="es"',
    );
    const signed = xmlsecSign(template);
    assert.match(signed, /<SignatureValue>[A-Za-z0-9+/=\n]{300,}<\/SignatureValue>/);
    const result = assertValid(signed);
    assert.equal(result.certificate.fingerprint256, certificate.fingerprint256);
    assert.equal(result.signatureValue, (/<SignatureValue>([^<]+)</.exec(signed)?.[1] ?? '').replace(/\n/g, ''));

    const doc = parseXml(signed);
    const signedInfo = findPath(doc.root, ['Signature', 'SignedInfo']);
    assert.ok(signedInfo);
    const { preSigned } = xmlsecBuffers(signed);
    assert.equal(canonicalizeElement(signedInfo), preSigned);
    assert.match(preSigned, /^<SignedInfo [^>]*xml:lang="es">/);

    assertInvalid(signed.replace('<Version>1.0</Version>', '<Version>1.1</Version>'), /digest mismatch/);
    // A namespace declared on Signature is outside the digested content but inside SignedInfo's canonical form.
    const redeclared = signed.replace(`<Signature xmlns="${XMLDSIG.namespace}"`, `<Signature xmlns="${XMLDSIG.namespace}" xmlns:x="urn:x"`);
    assert.notEqual(redeclared, signed);
    assert.notEqual(xmlsecVerify(redeclared), 0);
    assertInvalid(redeclared, /signature value does not match/);
  });

  it('accepts an xmlsec1-signed seed-like document without namespaces', () => {
    const signed = xmlsecSign(xmlsecTemplate('<valor>c2VtaWxsYQ==</valor><fecha>2025-04-01T10:30:00</fecha>', ''));
    assertValid(signed);
    assertInvalid(signed.replace('<fecha>2025', '<fecha>2026'), /digest mismatch/);
  });
});

describe('verifyXml refuses other signature profiles', () => {
  const signed = (): string => signXml(SIMPLE_ECF, key, certificate);
  const cases: readonly (readonly [string, (xml: string) => string])[] = [
    ['a SHA-1 digest', (x) => x.replace(XMLDSIG.digestMethod, 'http://www.w3.org/2000/09/xmldsig#sha1')],
    ['RSA-SHA1', (x) => x.replace(XMLDSIG.signatureMethod, 'http://www.w3.org/2000/09/xmldsig#rsa-sha1')],
    ['C14N with comments', (x) => x.replace(`"${XMLDSIG.canonicalization}"`, `"${XMLDSIG.canonicalization}#WithComments"`)],
    ['exclusive C14N', (x) => x.replace(XMLDSIG.canonicalization, 'http://www.w3.org/2001/10/xml-exc-c14n#')],
    ['a Reference URI other than ""', (x) => x.replace('<Reference URI="">', '<Reference URI="#ECF">')],
    ['a Reference without URI', (x) => x.replace('<Reference URI="">', '<Reference>')],
    ['two References', (x) => x.replace(/(<Reference[^]*<\/Reference>)/, '$1$1')],
    ['an extra transform', (x) => x.replace('</Transforms>', `<Transform Algorithm="${XMLDSIG.canonicalization}"></Transform></Transforms>`)],
    ['an HMAC output length', (x) => x.replace(/(<SignatureMethod [^>]*>)/, '$1<HMACOutputLength>8</HMACOutputLength>')],
    ['an Object element', (x) => x.replace('</KeyInfo>', '</KeyInfo><Object>x</Object>')],
    ['a Signature that is not the last child', (x) => x.replace('</Signature></ECF>', '</Signature><Extra>1</Extra></ECF>')],
    ['a Signature that is not a child of the root', (x) => x.replace(/(<Signature[^]*<\/Signature>)<\/ECF>/, '<Wrap>$1</Wrap></ECF>')],
    ['a second Signature hidden in the content', (x) => x.replace('<Encabezado>', `<Encabezado><Signature xmlns="${XMLDSIG.namespace}"></Signature>`)],
    ['a Signature in another namespace', (x) => x.replace(`<Signature xmlns="${XMLDSIG.namespace}">`, '<Signature xmlns="urn:other">')],
    ['the same certificate twice', (x) => x.replace(/(<X509Certificate>[^<]*<\/X509Certificate>)/, '$1$1')],
    ['a certificate that is not base64', (x) => x.replace(/<X509Certificate>[^<]*</, '<X509Certificate>not*base64<')],
    ['no KeyInfo', (x) => x.replace(/<KeyInfo>[^]*<\/KeyInfo>/, '')],
  ];
  for (const [name, mutate] of cases) {
    it(`rejects ${name} because of its structure`, () => {
      const variant = mutate(signed());
      assert.notEqual(variant, signed());
      assertInvalid(variant, /signature profile/);
    });
  }

  it('rejects unsigned, non-XML and hostile input without throwing', () => {
    assertInvalid(SIMPLE_ECF, /no Signature/);
    assertInvalid('<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>', /XML_DTD_FORBIDDEN/);
    assertInvalid(Buffer.from([0xff, 0xfe, 0x00, 0x3c]), /XML_ENCODING/);
    assertInvalid('', /XML_MALFORMED/);
    assertInvalid(`<a>${'<b>'.repeat(50_000)}`, /XML_TOO_DEEP/);
  });

  it('never throws on randomly corrupted signed documents', () => {
    const original = Buffer.from(signed(), 'utf8');
    for (let i = 0; i < 400; i++) {
      const copy = Buffer.from(original);
      for (let j = 0; j < 1 + (i % 3); j++) copy[randomInt(copy.length)] = randomInt(256);
      const result = verifyXml(copy);
      assert.equal(typeof result.valid, 'boolean');
    }
  });
});
