import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';
import { readCertificateFields } from '../src/crypto/x509/certificate-fields.ts';
import { verifyChain } from '../src/crypto/x509/chain.ts';
import { crlCoverageProblem, crlIssuerProblem, parseCrl } from '../src/crypto/x509/crl.ts';
import { RevocationChecker } from '../src/crypto/x509/revocation.ts';
import { parseTrustBundle } from '../src/crypto/x509/trust-store.ts';
import { guardedGet } from '../src/lib/guarded-get.ts';
import { signXml, verifyXml } from '../src/xml/index.ts';
import { withIssuers } from './helpers/fe-sender.ts';
import { startCrlServer, TestPki, type CrlServer, type Issued } from './helpers/pki.ts';

// The chain verifier against a hierarchy openssl made: root → intermediate → leaves, with the
// intermediate's CRL (one leaf revoked) and the root's CRL served on loopback.

const SUBJECT = '/CN=Distribuidora Caribe Digital SRL/serialNumber=131880681';
const DAY = 86_400_000;

let pki: TestPki;
let crls: CrlServer;
let root: Issued;
let intermediate: Issued;
let good: Issued;
let revoked: Issued;
let expired: Issued;
let noSigning: Issued;
let forged: Issued;
let notCa: Issued;
let underNotCa: Issued;
let noCrl: Issued;

before(async () => {
  crls = await startCrlServer();
  pki = new TestPki();
  root = pki.issue('/CN=Raiz de Prueba', null, { ca: true, startDays: -60, endDays: 3650 });
  intermediate = pki.issue('/CN=CA Intermedia de Prueba', root, { ca: true, startDays: -60, crlUrl: `${crls.url}/root.crl` });
  const crlUrl = `${crls.url}/intermediate.crl`;
  good = pki.issue(SUBJECT, intermediate, { crlUrl });
  revoked = pki.issue(SUBJECT, intermediate, { crlUrl });
  expired = pki.issue(SUBJECT, intermediate, { crlUrl, startDays: -30, endDays: -1 });
  noSigning = pki.issue(SUBJECT, intermediate, { crlUrl, keyUsage: 'keyEncipherment' });
  forged = pki.issue(SUBJECT, null, { ownKey: true });
  notCa = pki.issue('/CN=Empresa sin CA/serialNumber=101010101', intermediate, { keyUsage: null, crlUrl });
  underNotCa = pki.issue(SUBJECT, notCa, {});
  noCrl = pki.issue(SUBJECT, intermediate, {});
  pki.revoke(revoked, intermediate);
  crls.files.set('intermediate.crl', pki.crl(intermediate));
  crls.files.set('root.crl', pki.crl(root));
});
after(async () => {
  await crls.close();
  pki.remove();
});

describe('trust bundle', () => {
  test('parseTrustBundle reads the CA certificates of a PEM bundle, once each, ignoring text between blocks', () => {
    const anchors = parseTrustBundle(`# Raiz\n${root.pem}\nIntermedia\n${intermediate.pem}${root.pem}`);
    assert.deepEqual(anchors.map((a) => a.fingerprint256), [root.certificate.fingerprint256, intermediate.certificate.fingerprint256]);
  });

  test('parseTrustBundle refuses a leaf, a damaged block, another kind of block and a file without certificates', () => {
    assert.throws(() => parseTrustBundle(root.pem + good.pem), /certificate 2 .* is not a CA certificate/);
    assert.throws(() => parseTrustBundle(root.pem.replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAA')), /certificate 1 cannot be read/);
    assert.throws(() => parseTrustBundle('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'), /PRIVATE KEY, not a CERTIFICATE/);
    assert.throws(() => parseTrustBundle('nothing here'), /no PEM certificate/);
  });

  test('RECEIVER_TRUSTED_CA_FILE is loaded at start; a missing or bad file is a configuration error', () => {
    const file = pki.bundle([root]);
    assert.equal(loadConfig({ RECEIVER_TRUSTED_CA_FILE: file }).receiver.trustedCas?.length, 1);
    assert.equal(loadConfig({}).receiver.trustedCas, null);
    const bad = join(pki.dir, 'bad-bundle.pem');
    writeFileSync(bad, good.pem);
    for (const [value, message] of [[bad, /RECEIVER_TRUSTED_CA_FILE .* not a CA certificate/], [join(pki.dir, 'missing.pem'), /RECEIVER_TRUSTED_CA_FILE .* cannot be read \(ENOENT\)/]] as const) {
      assert.throws(() => loadConfig({ RECEIVER_TRUSTED_CA_FILE: value }), (e) => e instanceof ConfigError && message.test(e.message));
    }
  });
});

describe('verifyChain', () => {
  const now = () => new Date();

  test('a leaf chains through the intermediate it offers to the root, or straight to an intermediate anchor', () => {
    const result = verifyChain(good.certificate, [intermediate.certificate], [root.certificate], now());
    assert.ok(result.ok);
    assert.deepEqual(result.path.map((l) => l.certificate.fingerprint256), [good, intermediate, root].map((c) => c.certificate.fingerprint256));
    const direct = verifyChain(good.certificate, [], [intermediate.certificate], now());
    assert.ok(direct.ok);
    assert.equal(direct.path.length, 2);
  });

  test('a self-signed certificate claiming the RNC, or a leaf whose intermediate is missing, does not chain', () => {
    for (const [leaf, offered] of [[forged, [intermediate]], [good, []]] as const) {
      const result = verifyChain(leaf.certificate, offered.map((c) => c.certificate), [root.certificate], now());
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.reason, /no se pudo encadenar hasta una autoridad de certificación de confianza/);
    }
  });

  test('validity is judged at the signing time given', () => {
    const late = verifyChain(expired.certificate, [intermediate.certificate], [root.certificate], now());
    assert.match(late.ok ? '' : late.reason, /estaba vencido en la fecha de firma/);
    assert.ok(verifyChain(expired.certificate, [intermediate.certificate], [root.certificate], new Date(Date.now() - 5 * DAY)).ok);
    const early = verifyChain(good.certificate, [intermediate.certificate], [root.certificate], new Date(Date.now() - 3 * DAY));
    assert.match(early.ok ? '' : early.reason, /no era válido aún/);
  });

  test('a leaf whose KeyUsage does not allow signing, and a CA certificate that is not a CA, are refused', () => {
    const noSign = verifyChain(noSigning.certificate, [intermediate.certificate], [root.certificate], now());
    assert.match(noSign.ok ? '' : noSign.reason, /KeyUsage sin digitalSignature ni nonRepudiation/);
    const fake = verifyChain(underNotCa.certificate, [notCa.certificate, intermediate.certificate], [root.certificate], now());
    assert.match(fake.ok ? '' : fake.reason, /Empresa sin CA.* no es de una autoridad de certificación/);
  });

  test('intermediates that all claim to issue one another end the search quickly', () => {
    const loop = Array.from({ length: 6 }, () => pki.issue('/CN=Bucle', null, { ca: true }));
    const started = performance.now();
    const result = verifyChain(loop[0]?.certificate ?? forged.certificate, loop.map((c) => c.certificate), [root.certificate], now());
    assert.equal(result.ok, false);
    assert.ok(performance.now() - started < 2000);
  });
});

describe('CRLs', () => {
  test('a CRL is read from DER and PEM, verified against its issuer and lists the revoked serial', () => {
    const der = crls.files.get('intermediate.crl') ?? Buffer.alloc(0);
    const pem = Buffer.from(`-----BEGIN X509 CRL-----\n${der.toString('base64')}\n-----END X509 CRL-----\n`);
    for (const crl of [parseCrl(der), parseCrl(pem)]) {
      assert.deepEqual([...crl.revoked], [readCertificateFields(revoked.certificate).serial]);
      assert.equal(crlIssuerProblem(crl, intermediate.certificate, readCertificateFields(intermediate.certificate)), null);
      assert.match(crlIssuerProblem(crl, root.certificate, readCertificateFields(root.certificate)) ?? '', /another name/);
      assert.equal(crlCoverageProblem(crl, new Date(), false), null);
      assert.match(crlCoverageProblem(crl, new Date((crl.nextUpdate?.getTime() ?? 0) + 1000), false) ?? '', /stale/);
    }
    const tampered = Buffer.from(der);
    tampered[tampered.length - 5] = (tampered[tampered.length - 5] ?? 0) ^ 0xff;
    assert.match(crlIssuerProblem(parseCrl(tampered), intermediate.certificate, readCertificateFields(intermediate.certificate)) ?? '', /signature does not verify/);
    assert.throws(() => parseCrl(Buffer.from('not a crl')), /malformed CRL/);
  });

  test('RevocationChecker fetches each CRL once, finds revoked certificates and reports CRLs it cannot have', async () => {
    const fetched: string[] = [];
    const checker = new RevocationChecker({
      fetchCrl: async (url) => {
        fetched.push(url);
        const body = crls.files.get(new URL(url).pathname.slice(1));
        if (body === undefined) throw new Error('answered 404');
        return body;
      },
    });
    const pathOf = (leaf: Issued) => {
      const result = verifyChain(leaf.certificate, [intermediate.certificate], [root.certificate], new Date());
      assert.ok(result.ok);
      return result.path;
    };
    assert.deepEqual(await checker.check(pathOf(good)), { status: 'good', unchecked: 0 });
    assert.equal(fetched.length, 2);
    assert.deepEqual(await checker.check(pathOf(good)), { status: 'good', unchecked: 0 });
    assert.equal(fetched.length, 2, 'both CRLs came from the cache');
    const verdict = await checker.check(pathOf(revoked));
    assert.equal(verdict.status, 'revoked');
    assert.deepEqual(await checker.check(pathOf(noCrl)), { status: 'good', unchecked: 1 });

    crls.files.delete('root.crl');
    const fresh = new RevocationChecker({ fetchCrl: async (url) => {
      const body = crls.files.get(new URL(url).pathname.slice(1));
      if (body === undefined) throw new Error('answered 404');
      return body;
    } });
    const unknown = await fresh.check(pathOf(good));
    assert.equal(unknown.status, 'unknown');
    assert.match(unknown.status === 'unknown' ? unknown.reason : '', /root\.crl: answered 404/);
    crls.files.set('root.crl', pki.crl(root));
  });

  test('CRLs are fetched through the egress guard: loopback is refused unless allowed, and the size is capped', async () => {
    const url = `${crls.url}/intermediate.crl`;
    await assert.rejects(guardedGet(url, { timeoutMs: 2000, maxBytes: 1 << 20, allowPrivate: false }), /refused destination: 127\.0\.0\.1 is loopback/);
    await assert.rejects(guardedGet(url.replace('127.0.0.1', 'localhost'), { timeoutMs: 2000, maxBytes: 1 << 20, allowPrivate: false }), /refused destination/);
    assert.deepEqual(await guardedGet(url, { timeoutMs: 2000, maxBytes: 1 << 20, allowPrivate: true }), crls.files.get('intermediate.crl'));
    await assert.rejects(guardedGet(url, { timeoutMs: 2000, maxBytes: 64, allowPrivate: true }), /larger than 64 bytes/);
    await assert.rejects(guardedGet(`${crls.url}/none.crl`, { timeoutMs: 2000, maxBytes: 1 << 20, allowPrivate: true }), /answered 404/);
    await assert.rejects(guardedGet('ldap://ca.example/crl', { timeoutMs: 2000, maxBytes: 1 << 20, allowPrivate: true }), /only http and https/);
  });
});

describe('XMLDSig KeyInfo with a chain', () => {
  test('verifyXml takes the first X509Certificate as the signer and offers the others as its issuers', () => {
    const signed = withIssuers(signXml('<Doc><a>1</a></Doc>', good.privateKey, good.certificate), [intermediate.certificate]);
    const result = verifyXml(signed);
    assert.ok(result.valid, result.valid ? '' : result.reason);
    assert.equal(result.certificate.fingerprint256, good.certificate.fingerprint256);
    assert.deepEqual(result.chain.map((c) => c.fingerprint256), [intermediate.certificate.fingerprint256]);

    const swapped = signed.replace(/<X509Data>(<X509Certificate>[^<]*<\/X509Certificate>)(<X509Certificate>[^<]*<\/X509Certificate>)/, '<X509Data>$2$1');
    assert.equal(verifyXml(swapped).valid, false, 'the signer is the first certificate, not any that verifies');
    const many = withIssuers(signXml('<Doc/>', good.privateKey, good.certificate), [intermediate, root, revoked, expired, noSigning, forged].map((c) => c.certificate));
    const tooMany = verifyXml(many);
    assert.match(tooMany.valid ? '' : tooMany.reason, /at most 6/);
  });
});
