import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { formatFechaHoraFirma } from '../src/ecf/xml/index.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { sampleEcf } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { arecfOutcome, FeSender, receiverBase, SENDER_RNC, signedAcecf, signedEcfTo, withIssuers, type AcecfFields } from './helpers/fe-sender.ts';
import { call } from './helpers/http.ts';
import { startCrlServer, TestPki, type CrlServer, type Issued } from './helpers/pki.ts';
import { startTestService, type TestService } from './helpers/service.ts';

// Who may sign what the receiver accepts. A service with RECEIVER_TRUSTED_CA_FILE (a root
// openssl made; CRLs served on loopback) takes only signers that chain to it; a service
// without one refuses every sender in eCF and takes any in TesteCF, marked untrusted.

const BUYER_RNC = '101672919';
const DAY = 86_400_000;
const LIMITS = { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' };

let pki: TestPki;
let crls: CrlServer;
let trusting: TestService;
let open: TestService;
let intermediate: Issued;
let good: Issued;
let goodBuyer: Issued;
let revoked: Issued;
let expired: Issued;
let noSigning: Issued;
let crlDown: Issued;
let forged: Issued;
let forgedBuyer: Issued;
let crlDownBuyer: Issued;

before(async () => {
  crls = await startCrlServer();
  pki = new TestPki();
  const root = pki.issue('/CN=Raiz de Prueba', null, { ca: true, startDays: -60, endDays: 3650 });
  intermediate = pki.issue('/CN=CA Intermedia de Prueba', root, { ca: true, startDays: -60, crlUrl: `${crls.url}/root.crl` });
  const crlUrl = `${crls.url}/intermediate.crl`;
  const sender = `/CN=Distribuidora Caribe Digital SRL/serialNumber=${SENDER_RNC}`;
  const buyer = `/CN=Ferreteria Ochoa SRL/serialNumber=${BUYER_RNC}`;
  good = pki.issue(sender, intermediate, { crlUrl });
  goodBuyer = pki.issue(buyer, intermediate, { crlUrl });
  revoked = pki.issue(sender, intermediate, { crlUrl });
  expired = pki.issue(sender, intermediate, { crlUrl, startDays: -30, endDays: -1 });
  noSigning = pki.issue(sender, intermediate, { crlUrl, keyUsage: 'keyEncipherment, dataEncipherment' });
  crlDown = pki.issue(sender, intermediate, { crlUrl: `${crls.url}/down.crl` });
  forged = pki.issue(sender, null, { ownKey: true });
  forgedBuyer = pki.issue(buyer, null, { ownKey: true });
  crlDownBuyer = pki.issue(buyer, intermediate, { crlUrl: `${crls.url}/down.crl` });
  pki.revoke(revoked, intermediate);
  crls.files.set('intermediate.crl', pki.crl(intermediate));
  crls.files.set('root.crl', pki.crl(root));

  trusting = await startTestService({ env: { ...LIMITS, RECEIVER_TRUSTED_CA_FILE: pki.bundle([root]), RECEIVER_CRL_ALLOW_PRIVATE_NETWORKS: 'true' } });
  open = await startTestService({ env: LIMITS, captureLog: true });
});
after(async () => {
  await trusting?.close();
  await open?.close();
  await crls.close();
  pki.remove();
});

/** A sender of `cert` to a new tenant's receiver in `env`; X509Data carries the intermediate unless the certificate is self-signed. */
async function senderTo(t: TestService, env: string, cert: Issued | DgiiCredentials) {
  const tenant = await newTenantWithCertificate(t.url);
  const issuers = 'name' in cert && cert.certificate.issuer !== cert.certificate.subject ? [intermediate.certificate] : [];
  return { tenant, sender: new FeSender(t.url, receiverBase(env, tenant.rnc), cert, issuers) };
}

async function signedSeedAnswer(sender: FeSender) {
  const seed = await sender.seed();
  assert.equal(seed.status, 200, seed.text);
  return sender.validate(sender.sign(seed.text));
}

/** An e-CF from SENDER_RNC to `rnc` signed by `cert` (its intermediate in X509Data), FechaHoraFirma `signedAt`. */
function ecf(cert: Issued, rnc: string, signedAt = new Date()) {
  const { xml, encf } = signedEcfTo(cert, {
    rncComprador: rnc,
    beforeSigning: (x) => x.replace(/<FechaHoraFirma>[^<]*<\/FechaHoraFirma>/, `<FechaHoraFirma>${formatFechaHoraFirma(signedAt)}</FechaHoraFirma>`),
  });
  return { xml: cert.certificate.issuer === cert.certificate.subject ? xml : withIssuers(xml, [intermediate.certificate]), encf };
}

async function received(t: TestService, apiKey: string, env = 'TesteCF') {
  const list = await call(t.url, 'GET', `/${env}/documentos-recibidos`, { headers: { 'x-api-key': apiKey } });
  assert.equal(list.status, 200, list.text);
  return list.body.data.items as { id: string; encf: string; signerTrusted: boolean }[];
}

/** A tenant of `t` that issued an e-CF to BUYER_RNC in TesteCF, and the ACECF fields matching it. */
async function issuedToBuyer(t: TestService) {
  const tenant = await newTenantWithCertificate(t.url);
  const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: tenant.rnc }, Comprador: { RNCComprador: BUYER_RNC } } }),
    headers: { 'x-api-key': tenant.apiKey },
  });
  assert.equal(emitted.status, 202, emitted.text);
  const doc = emitted.body.data;
  const fields: AcecfFields = { rncEmisor: tenant.rnc, encf: doc.encf, fechaEmision: doc.fechaEmision, montoTotal: doc.montoTotal, rncComprador: BUYER_RNC, estado: 1 };
  return { tenant, fields, documentId: doc.internalTrackId as string };
}

async function approvalTrust(t: TestService, documentId: string): Promise<string[]> {
  const rows = await t.sql<{ signerTrust: string }[]>`select signer_trust from commercial_approvals where document_id = ${documentId}`;
  return rows.map((r) => r.signerTrust);
}

test('with a trust bundle, a self-signed certificate claiming a taxpayer\'s RNC is refused at the seed, the e-CF and the ACECF', async () => {
  for (const env of ['TesteCF', 'eCF']) {
    const { sender } = await senderTo(trusting, env, forged);
    const res = await signedSeedAnswer(sender);
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'SIGNER_NOT_TRUSTED');
    assert.match(res.body.error.message, /no se pudo encadenar hasta una autoridad de certificación de confianza/);
  }

  // A real sender's token does not make a forged signature on the e-CF acceptable.
  const { tenant, sender } = await senderTo(trusting, 'TesteCF', good);
  const token = await sender.token();
  const answer = await sender.send('recepcion', ecf(forged, tenant.rnc).xml, token);
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual([arecfOutcome(answer.text).estado, arecfOutcome(answer.text).motivo], ['1', '2']);
  assert.deepEqual(await received(trusting, tenant.apiKey), []);

  // A forged rejection of an invoice, with the fields of the real one.
  const issued = await issuedToBuyer(trusting);
  const buyer = new FeSender(trusting.url, receiverBase('TesteCF', issued.tenant.rnc), goodBuyer, [intermediate.certificate]);
  const buyerToken = await buyer.token();
  const fake = await buyer.send('aprobacioncomercial', signedAcecf(forgedBuyer, { ...issued.fields, estado: 2, detalleMotivoRechazo: 'Rechazada' }), buyerToken);
  assert.equal(fake.status, 403, fake.text);
  assert.equal(fake.body.error.code, 'SIGNER_NOT_TRUSTED');
  assert.deepEqual(await approvalTrust(trusting, issued.documentId), []);
  const real = await buyer.send('aprobacioncomercial', withIssuers(signedAcecf(goodBuyer, issued.fields), [intermediate.certificate]), buyerToken);
  assert.equal(real.status, 200, real.text);
  assert.deepEqual(await approvalTrust(trusting, issued.documentId), ['trusted']);
});

test('a sender whose certificate chains to the bundle is accepted in every environment and its e-CF is marked trusted', async () => {
  for (const env of ['TesteCF', 'eCF']) {
    const { tenant, sender } = await senderTo(trusting, env, good);
    const token = await sender.token();
    const { xml, encf } = ecf(good, tenant.rnc);
    const answer = await sender.send('recepcion', xml, token);
    assert.equal(arecfOutcome(answer.text).estado, '0', answer.text);
    const [item] = await received(trusting, tenant.apiKey, env);
    assert.deepEqual([item?.encf, item?.signerTrusted], [encf, true]);
    const detail = await call(trusting.url, 'GET', `/${env}/documentos-recibidos/${item?.id}`, { headers: { 'x-api-key': tenant.apiKey } });
    assert.equal(detail.body.data.signerTrusted, true);
  }
  assert.ok((crls.hits.get('intermediate.crl') ?? 0) >= 1 && (crls.hits.get('root.crl') ?? 0) >= 1, 'the chain\'s CRLs were fetched');
});

test('revoked, expired and non-signing certificates are refused; an e-CF is judged at reception, whatever its FechaHoraFirma says', async () => {
  const revokedSeed = await signedSeedAnswer((await senderTo(trusting, 'TesteCF', revoked)).sender);
  assert.equal(revokedSeed.status, 403, revokedSeed.text);
  assert.match(revokedSeed.body.error.message, /revocado/);
  const expiredSeed = await signedSeedAnswer((await senderTo(trusting, 'TesteCF', expired)).sender);
  assert.equal(expiredSeed.status, 401, expiredSeed.text);
  assert.match(expiredSeed.body.error.message, /venció/);
  const noSigningSeed = await signedSeedAnswer((await senderTo(trusting, 'TesteCF', noSigning)).sender);
  assert.equal(noSigningSeed.status, 403, noSigningSeed.text);
  assert.match(noSigningSeed.body.error.message, /KeyUsage sin digitalSignature/);

  const { tenant, sender } = await senderTo(trusting, 'TesteCF', good);
  const token = await sender.token();
  for (const cert of [revoked, expired, noSigning]) {
    const outcome = arecfOutcome((await sender.send('recepcion', ecf(cert, tenant.rnc).xml, token)).text);
    assert.deepEqual([outcome.estado, outcome.motivo], ['1', '2'], cert.certificate.serialNumber);
  }
  // A FechaHoraFirma from when the certificate was still valid is the sender's claim (issue 28,
  // item 11): the expired certificate is refused all the same, and nothing is stored.
  const backdated = ecf(expired, tenant.rnc, new Date(Date.now() - 3 * DAY));
  const outcome = arecfOutcome((await sender.send('recepcion', backdated.xml, token)).text);
  assert.deepEqual([outcome.estado, outcome.motivo], ['1', '2']);
  assert.deepEqual(await received(trusting, tenant.apiKey), []);
  // The same date on a certificate valid now is fine.
  const fine = ecf(good, tenant.rnc, new Date(Date.now() - 3 * DAY));
  assert.equal(arecfOutcome((await sender.send('recepcion', fine.xml, token)).text).estado, '0');
  assert.deepEqual((await received(trusting, tenant.apiKey)).map((d) => [d.encf, d.signerTrusted]), [[fine.encf, true]]);
});

test('when a CRL cannot be had, eCF refuses with CERTIFICATE_REVOCATION_UNKNOWN and TesteCF accepts the signer marked untrusted', async () => {
  const production = await signedSeedAnswer((await senderTo(trusting, 'eCF', crlDown)).sender);
  assert.equal(production.status, 503, production.text);
  assert.equal(production.body.error.code, 'CERTIFICATE_REVOCATION_UNKNOWN');
  assert.match(production.body.error.message, /down\.crl: answered 404/);
  assert.equal(production.headers.get('retry-after'), '60');

  const { tenant, sender } = await senderTo(trusting, 'TesteCF', crlDown);
  const token = await sender.token();
  assert.equal(arecfOutcome((await sender.send('recepcion', ecf(crlDown, tenant.rnc).xml, token)).text).estado, '0');
  assert.deepEqual((await received(trusting, tenant.apiKey)).map((d) => d.signerTrusted), [false]);
});

test('without a trust bundle, eCF refuses every sender, and the service says so at start', async () => {
  assert.ok(open.logLines.some((l) => /"level":"warn"/.test(l) && /RECEIVER_TRUSTED_CA_FILE is not set/.test(l)));
  const { tenant, sender } = await senderTo(open, 'eCF', good);
  const seed = await signedSeedAnswer(sender);
  assert.equal(seed.status, 403, seed.text);
  assert.equal(seed.body.error.code, 'SIGNER_NOT_TRUSTED');
  assert.match(seed.body.error.message, /RECEIVER_TRUSTED_CA_FILE/);

  // A token from before the bundle was removed does not let anything in either.
  const token = randomBytes(32).toString('base64url');
  await open.sql`insert into receiver_tokens (token_hash, tenant_id, environment, holder_id, holder_subject, expires_at)
    values (${createHash('sha256').update(token).digest()}, ${tenant.tenantId}, 'eCF', ${SENDER_RNC}, 'CN=x', now() + interval '1 hour')`;
  for (const [path, xml] of [['recepcion', ecf(good, tenant.rnc).xml], ['aprobacioncomercial', signedAcecf(good, { rncEmisor: tenant.rnc, encf: 'E310000000001', fechaEmision: '01-01-2026', montoTotal: '1.00', rncComprador: SENDER_RNC, estado: 1 })]] as const) {
    const res = await sender.send(path, xml, token);
    assert.equal(res.status, 403, `${path}: ${res.text}`);
    assert.equal(res.body.error.code, 'SIGNER_NOT_TRUSTED');
  }
});

test('without a trust bundle, TesteCF accepts a self-signed sender and marks its e-CF and ACECF untrusted', async () => {
  const { tenant, sender } = await senderTo(open, 'TesteCF', forged);
  const token = await sender.token();
  assert.equal(arecfOutcome((await sender.send('recepcion', ecf(forged, tenant.rnc).xml, token)).text).estado, '0');
  const [item] = await received(open, tenant.apiKey);
  assert.equal(item?.signerTrusted, false);

  const issued = await issuedToBuyer(open);
  const buyer = new FeSender(open.url, receiverBase('TesteCF', issued.tenant.rnc), forgedBuyer);
  const res = await buyer.send('aprobacioncomercial', signedAcecf(forgedBuyer, issued.fields), await buyer.token());
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(await approvalTrust(open, issued.documentId), ['untrusted']);
});

test('an ACECF accepted untrusted shows signerTrusted false on the emisor\'s document and event; a trusted one replaces it, an untrusted one never replaces a trusted one', async () => {
  const issued = await issuedToBuyer(trusting);
  const headers = { 'x-api-key': issued.tenant.apiKey };
  const base = receiverBase('TesteCF', issued.tenant.rnc);
  const approvalOf = async () => (await call(trusting.url, 'GET', `/TesteCF/documentos-ecf/${issued.documentId}`, { headers })).body.data.aprobacionComercial;
  const events = async () => (await trusting.sql<{ body: string }[]>`select body from events where tenant_id = ${issued.tenant.tenantId} and kind = 'ecf.commercial_approval' order by created_at`)
    .map((r) => (JSON.parse(r.body) as { aprobacionComercial: Record<string, unknown> }).aprobacionComercial);

  // Its CRL cannot be had: TesteCF accepts the buyer's signer, untrusted.
  const unproven = new FeSender(trusting.url, base, crlDownBuyer, [intermediate.certificate]);
  const rejection = withIssuers(signedAcecf(crlDownBuyer, { ...issued.fields, estado: 2, detalleMotivoRechazo: 'Rechazada' }), [intermediate.certificate]);
  const first = await unproven.send('aprobacioncomercial', rejection, await unproven.token());
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(await approvalOf(), { estado: 'rechazado', motivo: 'Rechazada', fecha: (await approvalOf()).fecha, signerTrusted: false });
  assert.deepEqual((await events()).map((e) => [e.estado, e.signerTrusted]), [['rechazado', false]]);

  // The real buyer's approval, signed by a certificate that chains and is not revoked, takes its place.
  const buyer = new FeSender(trusting.url, base, goodBuyer, [intermediate.certificate]);
  const token = await buyer.token();
  const real = await buyer.send('aprobacioncomercial', withIssuers(signedAcecf(goodBuyer, issued.fields), [intermediate.certificate]), token);
  assert.equal(real.status, 200, real.text);
  assert.deepEqual(await approvalTrust(trusting, issued.documentId), ['trusted']);
  assert.equal((await approvalOf()).estado, 'aprobado');
  assert.equal((await approvalOf()).signerTrusted, true);
  assert.deepEqual((await events()).map((e) => [e.estado, e.signerTrusted]), [['rechazado', false], ['aprobado', true]]);

  // An untrusted one cannot take the slot back, nor another trusted one.
  const again = await unproven.send('aprobacioncomercial', rejection, await unproven.token());
  assert.equal(again.status, 400, again.text);
  const other = await buyer.send('aprobacioncomercial', withIssuers(signedAcecf(goodBuyer, { ...issued.fields, estado: 2, detalleMotivoRechazo: 'Otra' }), [intermediate.certificate]), token);
  assert.equal(other.status, 400, other.text);
  assert.equal((await approvalOf()).estado, 'aprobado');
  assert.equal((await events()).length, 2);
});
