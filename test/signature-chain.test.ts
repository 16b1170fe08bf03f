import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePkcs12 } from '../src/certificates/pkcs12.ts';
import { verifyXml } from '../src/xml/index.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { XSD_DIR } from './helpers/dgii-xml.ts';
import { call, newTenant } from './helpers/http.ts';
import { TestPki, type Issued } from './helpers/pki.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { randomRnc } from './helpers/tax-ids.ts';

// Issue 28, item 12: the service's signatures carried only the leaf, so a verifier that trusts
// only the root could not build the path. The intermediates of the uploaded PKCS#12 now follow
// the leaf in KeyInfo (the root left out: the verifier has it).

const PASSWORD = 'Clave-de-prueba-1';
let t: TestService;
let pki: TestPki;
let root: Issued;
let intermediate: Issued;

before(async () => {
  t = await startTestService({ env: FAST_PIPELINE });
  pki = new TestPki();
  root = pki.issue('/CN=Raiz de Prueba', null, { ca: true, startDays: -60, endDays: 3650 });
  intermediate = pki.issue('/CN=CA Intermedia de Prueba', root, { ca: true, startDays: -60 });
});
after(async () => {
  await t.close();
  pki.remove();
});

test('a PKCS#12 with its chain yields the intermediates in order, roots and unrelated certificates left out', () => {
  const leaf = pki.issue('/CN=Empresa Cadena SRL/serialNumber=130000001', intermediate);
  const stranger = pki.issue('/CN=Otra CA', null, { ca: true, ownKey: true });
  const parsed = parsePkcs12(pki.p12(leaf, [root, stranger, intermediate], PASSWORD), PASSWORD);
  assert.deepEqual(parsed.intermediates.map((c) => c.subject), [intermediate.certificate.subject]);
  assert.deepEqual(parsePkcs12(pki.p12(leaf, [], PASSWORD), PASSWORD).intermediates, []);
});

test('an e-CF signed with an uploaded chain carries leaf then intermediate in KeyInfo, and verifies against the root alone', async () => {
  const a = await newTenant(t.url, { rnc: randomRnc() });
  const leaf = pki.issue(`/CN=Empresa ${a.rnc} SRL/serialNumber=${a.rnc}`, intermediate);
  const up = await call(t.url, 'POST', '/api/certificates', { json: { p12: pki.p12(leaf, [root, intermediate], PASSWORD).toString('base64'), password: PASSWORD }, headers: { authorization: `Bearer ${a.accessToken}` } });
  assert.equal(up.status, 201, up.text);
  const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
  assert.equal(emitted.status, 202, emitted.text);
  const id = emitted.body.data.internalTrackId as string;
  await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['aceptado', 'aceptado_condicional']);
  const xml = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}/xml`, { headers: { 'x-api-key': a.apiKey } })).text;

  const verified = verifyXml(xml);
  assert.ok(verified.valid, verified.valid ? '' : verified.reason);
  assert.equal(verified.certificate.fingerprint256, leaf.certificate.fingerprint256);
  assert.deepEqual(verified.chain.map((c) => c.fingerprint256), [intermediate.certificate.fingerprint256]);

  const file = join(pki.dir, 'signed-ecf.xml');
  writeFileSync(file, xml);
  // xmlsec1 trusts only the root; the intermediate comes from KeyInfo.
  const sig = spawnSync('xmlsec1', ['--verify', '--trusted-pem', root.certificatePath, file], { encoding: 'utf8' });
  assert.equal(sig.status, 0, sig.stderr);
  const lint = spawnSync('xmllint', ['--noout', '--schema', join(XSD_DIR, 'ecf-31.xsd'), file], { encoding: 'utf8' });
  assert.equal(lint.status, 0, lint.stderr);
});
