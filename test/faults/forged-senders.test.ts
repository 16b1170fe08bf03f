import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newTenantWithCertificate } from '../helpers/certificates.ts';
import { arecfOutcome, FeSender, multipartXml, receiverBase, SENDER_RNC, signedEcfTo, withIssuers } from '../helpers/fe-sender.ts';
import { call } from '../helpers/http.ts';
import { startCrlServer, TestPki, type CrlServer, type Issued } from '../helpers/pki.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';

// Trust under attack, against a real process in production mode with a CA bundle: a flood of
// forged senders (self-signed certificates claiming a real taxpayer's RNC, from many client
// addresses, at the seed and at the e-CF) while a genuine sender whose certificate chains to the
// bundle keeps delivering. No forged document may be stored, no answer may be a 5xx, and the
// genuine sender's documents all arrive, each marked trusted.

const FORGERS = 40;
const GENUINE = 5;

let database: TestDatabase;
let pki: TestPki;
let crls: CrlServer;
let service: Instance;
let intermediate: Issued;
let genuine: Issued;
let forged: Issued;

before(async () => {
  database = await faultDatabase();
  crls = await startCrlServer();
  pki = new TestPki();
  const root = pki.issue('/CN=Raiz de Prueba', null, { ca: true, startDays: -60, endDays: 3650 });
  intermediate = pki.issue('/CN=CA Intermedia de Prueba', root, { ca: true, startDays: -60 });
  const subject = `/CN=Distribuidora Caribe Digital SRL/serialNumber=${SENDER_RNC}`;
  genuine = pki.issue(subject, intermediate, { crlUrl: `${crls.url}/intermediate.crl` });
  forged = pki.issue(subject, null, { ownKey: true });
  crls.files.set('intermediate.crl', pki.crl(intermediate));
  service = await startInstance(await faultEnv(database.url, {
    NODE_ENV: 'production',
    TAX_AUTHORITY: 'simulator',
    REGISTRATION_ENABLED: 'true',
    TRUST_PROXY: '1',
    RECEIVER_TRUSTED_CA_FILE: pki.bundle([root]),
    RECEIVER_CRL_ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '100000',
  }));
});

after(async () => {
  await stopAllInstances();
  await crls?.close();
  pki?.remove();
  await database?.close();
});

test('a flood of forged senders from many addresses stores nothing and answers no 5xx, while a genuine chained sender gets every e-CF through', async () => {
  const tenant = await newTenantWithCertificate(service.url);
  const base = receiverBase('eCF', tenant.rnc);

  // Forgers, each from its own address: sign the seed with the forged certificate (no token can be
  // had that way), then try the e-CF without one.
  const forger = async (i: number): Promise<number[]> => {
    const headers = { 'x-forwarded-for': `203.0.113.${i + 1}` };
    const sender = new FeSender(service.url, base, forged);
    const seed = await call(service.url, 'GET', `${base}/autenticacion/api/semilla`, { headers });
    if (seed.status !== 200) return [seed.status];
    const signed = sender.sign(seed.text);
    const { body, headers: multipart } = multipartXml(signed);
    const validated = await call(service.url, 'POST', `${base}/autenticacion/api/validacioncertificado`, { body, headers: { ...multipart, ...headers } });
    const ecf = await sender.send('recepcion', signedEcfTo(forged, { rncComprador: tenant.rnc }).xml, null, headers);
    return [seed.status, validated.status, ecf.status];
  };

  const genuineSender = new FeSender(service.url, base, genuine, [intermediate.certificate]);
  const genuineRun = async (): Promise<string[]> => {
    const token = await genuineSender.token();
    const sent: string[] = [];
    for (let i = 0; i < GENUINE; i++) {
      const { xml, encf } = signedEcfTo(genuine, { rncComprador: tenant.rnc });
      const answer = await genuineSender.send('recepcion', withIssuers(xml, [intermediate.certificate]), token);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(arecfOutcome(answer.text).estado, '0', `the genuine e-CF ${encf} is received`);
      sent.push(encf);
    }
    return sent;
  };

  const [forgeries, sent] = await Promise.all([Promise.all(Array.from({ length: FORGERS }, (_, i) => forger(i))), genuineRun()]);
  const statuses = forgeries.flat();
  assert.ok(statuses.every((s) => s < 500), `no 5xx: ${statuses.join(',')}`);
  // Every forged seed is refused for its signer; an e-CF with no token is refused before it is read.
  assert.ok(forgeries.every((f) => f.length === 1 ? f[0] === 429 : f[1] === 403 && (f[2] === 401 || f[2] === 429)), JSON.stringify(forgeries));

  const list = await call(service.url, 'GET', '/eCF/documentos-recibidos?pageSize=500', { headers: { 'x-api-key': tenant.apiKey } });
  assert.equal(list.status, 200, list.text);
  const items = list.body.data.items as { encf: string; signerTrusted: boolean }[];
  assert.deepEqual(items.map((d) => d.encf).sort(), [...sent].sort(), 'exactly the genuine documents are stored');
  assert.ok(items.every((d) => d.signerTrusted), 'each marked trusted');
});
