import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, newTenant } from './helpers/http.ts';
import { makeTestCertificate, uploadCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE } });
});
after(() => t.close());

test('an emit before any certificate was uploaded answers a NO_CERTIFICATE warning; the document waits in error, and goes through once one is uploaded and it is resent', async () => {
  const a = await newTenant(t.url);
  const headers = { 'x-api-key': a.apiKey };
  const first = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { ...headers, 'idempotency-key': 'sin-certificado' } });
  assert.equal(first.status, 202, first.text);
  assert.deepEqual(first.body.warnings?.map((w: { code: string }) => w.code), ['NO_CERTIFICATE']);
  assert.match(first.body.warnings[0].message, /^No hay un certificado de firma válido/);
  // The replay of the stored answer says so too.
  const replay = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { ...headers, 'idempotency-key': 'sin-certificado' } });
  assert.deepEqual(replay.body, first.body);
  const batch = await call(t.url, 'POST', '/TesteCF/documentos-ecf/lote', { json: { documentos: [ecfFor(a.rnc)] }, headers });
  assert.deepEqual(batch.body.warnings?.map((w: { code: string }) => w.code), ['NO_CERTIFICATE']);

  const id = first.body.data.internalTrackId as string;
  const failed = await waitForEstado(t.url, 'TesteCF', id, headers, ['error']);
  assert.match(failed.dgiiMessage, /certificate/i);

  const uploaded = await uploadCertificate(t.url, a.accessToken, makeTestCertificate(a.rnc));
  assert.equal(uploaded.status, 201, uploaded.text);
  const after = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers });
  assert.equal(after.status, 202);
  assert.equal(after.body.warnings, undefined, 'no warning once the tenant can sign');
  const resent = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${id}/reenviar`, { headers });
  assert.equal(resent.status, 202, resent.text);
  await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
});
