import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { verifyXml } from '../src/xml/index.ts';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { arecfOutcome, FeSender, receiverBase, SENDER_RNC, SENDER_SUBJECT, signedEcfTo } from './helpers/fe-sender.ts';
import { startTestService, type TestService } from './helpers/service.ts';

// Only the emisor may issue its e-CF: the receiver refuses, with ARECF Estado 1 and motivo 2,
// an e-CF signed with a certificate of another RNC than RNCEmisor, and one sent with a token
// that was obtained with another RNC's certificate, even when the signature itself is valid.

const OTHER_RNC = '130458715';
let t: TestService;
let certs: CertificateFactory;
let emisor: DgiiCredentials;
let other: DgiiCredentials;

before(async () => {
  t = await startTestService({ env: { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' }, captureLog: true });
  certs = new CertificateFactory();
  emisor = certs.make(SENDER_SUBJECT);
  other = certs.make(`/CN=Otra Empresa SRL/serialNumber=${OTHER_RNC}`);
});
after(async () => {
  await t.close();
  certs.remove();
});

async function receiver() {
  const tenant = await newTenantWithCertificate(t.url);
  const senderAs = async (credentials: DgiiCredentials) => {
    const sender = new FeSender(t.url, receiverBase('TesteCF', tenant.rnc), credentials);
    return { sender, token: await sender.token() };
  };
  const stored = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from received_documents where tenant_id = ${tenant.tenantId}`)[0]?.n;
  return { tenant, senderAs, stored };
}

test('an e-CF signed by the emisor and sent with the emisor\'s token is received', async () => {
  const { tenant, senderAs, stored } = await receiver();
  const { sender, token } = await senderAs(emisor);
  const res = await sender.send('recepcion', signedEcfTo(emisor, { rncComprador: tenant.rnc }).xml, token);
  assert.equal(res.status, 200, res.text);
  assert.equal(arecfOutcome(res.text).estado, '0');
  assert.equal(await stored(), 1);
});

test('an e-CF whose signer\'s certificate names another RNC than RNCEmisor gets motivo 2 and is not stored', async () => {
  const { tenant, senderAs, stored } = await receiver();
  const { sender, token } = await senderAs(emisor);
  // A valid signature by a valid certificate, only not the emisor's.
  const { xml, encf } = signedEcfTo(other, { rncComprador: tenant.rnc, rncEmisor: SENDER_RNC });
  assert.equal(verifyXml(xml).valid, true);
  const res = await sender.send('recepcion', xml, token);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(arecfOutcome(res.text), { estado: '1', motivo: '2', encf, rncEmisor: SENDER_RNC, rncComprador: tenant.rnc });
  assert.equal(verifyXml(res.text).valid, true, 'the refusal is a signed ARECF');
  assert.equal(await stored(), 0);
  assert.ok(t.logLines.some((l) => l.includes(encf) && l.includes(`firmó el e-CF es de RNC ${OTHER_RNC}, no del RNCEmisor ${SENDER_RNC}`)));
});

test('an e-CF of the emisor sent with a token earned by another RNC\'s certificate gets motivo 2 and is not stored', async () => {
  const { tenant, senderAs, stored } = await receiver();
  const { sender, token } = await senderAs(other);
  const { xml, encf } = signedEcfTo(emisor, { rncComprador: tenant.rnc });
  const res = await sender.send('recepcion', xml, token);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual([arecfOutcome(res.text).estado, arecfOutcome(res.text).motivo], ['1', '2']);
  assert.equal(await stored(), 0);
  assert.ok(t.logLines.some((l) => l.includes(encf) && l.includes(`se autenticó con un certificado de RNC ${OTHER_RNC}, no del RNCEmisor ${SENDER_RNC}`)));

  // The same document with the emisor's own token goes through: nothing was held against it.
  const own = await senderAs(emisor);
  assert.equal(arecfOutcome((await own.sender.send('recepcion', xml, own.token)).text).estado, '0');
});

test('a signer whose certificate names no RNC or cédula is refused with motivo 2', async () => {
  const { tenant, senderAs, stored } = await receiver();
  const { sender, token } = await senderAs(emisor);
  const anonymous = certs.make('/CN=Sin Identificacion/O=Empresa');
  const res = await sender.send('recepcion', signedEcfTo(anonymous, { rncComprador: tenant.rnc }).xml, token);
  assert.deepEqual([arecfOutcome(res.text).estado, arecfOutcome(res.text).motivo], ['1', '2']);
  assert.equal(await stored(), 0);
});
