import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { call, newTenant, type Loose } from './helpers/http.ts';
import { postulacionXml } from './helpers/postulacion.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { parseXml, textAt } from '../src/xml/index.ts';

// DGII's certification portal: the postulación (and only the portal documents of the
// allow-list) signed for a signed-in user, each signature logged; the progress of the steps.

let t: TestService;
let dir = '';
before(async () => {
  t = await startTestService({ env: { RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  dir = await mkdtemp(join(tmpdir(), 'ecf-cert-'));
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const sign = (token: string, xml: string, headers: Record<string, string> = {}) =>
  call(t.url, 'POST', '/CerteCF/certificacion/firmar', { body: xml, headers: { 'content-type': 'application/xml', authorization: `Bearer ${token}`, ...headers } });

async function xmlsec1(xml: string, certificatePath: string): Promise<{ status: number | null; output: string }> {
  const file = join(dir, `signed-${Date.now()}-${Math.random()}.xml`);
  await writeFile(file, xml);
  const run = spawnSync('xmlsec1', ['--verify', '--trusted-pem', certificatePath, file], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test('a postulación is signed for the signed-in owner, verifies with xmlsec1, and the signature is logged', async () => {
  const a = await newTenantWithCertificate(t.url);
  const res = await sign(a.accessToken, postulacionXml(a.rnc));
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /application\/xml/);
  assert.match(res.headers.get('content-disposition') ?? '', new RegExp(`Postulacion_${a.rnc}_firmada\\.xml`));
  const verified = await xmlsec1(res.text, a.certificate.certificatePath);
  assert.equal(verified.status, 0, verified.output);
  const root = parseXml(res.text).root;
  assert.equal(textAt(root, ['Contribuyente', 'RazonSocial']), 'FERRETERÍA OCHOA & HIJOS SRL');
  assert.ok(textAt(root, ['Signature', 'SignatureValue']) !== undefined);
  const tampered = res.text.replace('<PostulacionID>48213</PostulacionID>', '<PostulacionID>48214</PostulacionID>');
  assert.notEqual((await xmlsec1(tampered, a.certificate.certificatePath)).status, 0, 'xmlsec1 refuses a changed document');

  const log = await call(t.url, 'GET', '/CerteCF/certificacion/firmas', { headers: { authorization: `Bearer ${a.accessToken}` } });
  assert.equal(log.status, 200, log.text);
  assert.equal(log.body.data.items.length, 1);
  const entry = log.body.data.items[0];
  assert.equal(entry.id, res.headers.get('x-firma-id'));
  assert.deepEqual([entry.documento, entry.referencia, entry.firmadoPor.email, entry.environment], ['postulacion', '48213', a.email, 'CerteCF']);
  assert.match(entry.sha256Original, /^[0-9a-f]{64}$/);
  const again = await call(t.url, 'GET', `/CerteCF/certificacion/firmas/${entry.id}`, { headers: { authorization: `Bearer ${a.accessToken}` } });
  assert.equal(again.text, res.text);
});

test('XML that is not a portal document of the allow-list is refused with 422 and nothing is signed', async () => {
  const a = await newTenantWithCertificate(t.url);
  const signedOnce = (await sign(a.accessToken, postulacionXml(a.rnc))).text;
  const refused: [string, RegExp][] = [
    ['<?xml version="1.0" encoding="utf-8"?><SemillaModel><valor>abc</valor><fecha>2026-11-27T10:00:00</fecha></SemillaModel>', /SemillaModel.*not a DGII portal document/],
    [`<ECF><Encabezado><Version>1.0</Version></Encabezado></ECF>`, /not a DGII portal document/],
    [postulacionXml('131880681'), /RNC 131880681, not this tenant's/],
    [postulacionXml(a.rnc, '\n  <Pago>100</Pago>'), /<Pago> is not an element/],
    [postulacionXml(a.rnc).replace('<TipoRegistro>1</TipoRegistro>', '<TipoRegistro>1</TipoRegistro><TipoRegistro>2</TipoRegistro>'), /more than once/],
    [postulacionXml(a.rnc).replace('<Sector>NACO</Sector>', '<Sector>NACO<!-- x --></Sector>'), /comment/],
    [postulacionXml(a.rnc).replace('<Postulacion ', '<Postulacion xmlns="urn:otro" '), /no namespace|namespace declaration/],
    [postulacionXml(a.rnc).replace('<PostulacionID>', '<PostulacionID id="x">'), /attributes/],
    [postulacionXml(a.rnc).replace(/<Software>[\s\S]*<\/Software>/, ''), /<Software> is missing/],
    [postulacionXml(a.rnc).replace('<?xml version="1.0" encoding="utf-8"?>', '<?xml version="1.0" encoding="utf-8"?><!DOCTYPE Postulacion [<!ENTITY x "y">]>'), /not well-formed|DOCTYPE|DTD/i],
    [signedOnce, /already signed/],
    ['', /empty/],
  ];
  for (const [xml, message] of refused) {
    const res = await sign(a.accessToken, xml);
    assert.equal(res.status, 422, `${xml.slice(0, 80)}: ${res.text}`);
    assert.match(JSON.stringify(res.body.error), message, xml.slice(0, 120));
  }
  const [n] = await t.sql<{ n: number }[]>`select count(*)::int as n from portal_signatures where tenant_id = ${a.tenantId}`;
  assert.equal(n?.n, 1, 'only the one postulación was signed');
});

test('an API key is refused: alone (401) and beside a signed-in user\'s token (403)', async () => {
  const a = await newTenantWithCertificate(t.url);
  const keyOnly = await call(t.url, 'POST', '/CerteCF/certificacion/firmar', { body: postulacionXml(a.rnc), headers: { 'content-type': 'application/xml', 'x-api-key': a.apiKey } });
  assert.equal(keyOnly.status, 401, keyOnly.text);
  const both = await sign(a.accessToken, postulacionXml(a.rnc), { 'x-api-key': a.apiKey });
  assert.equal(both.status, 403, both.text);
  for (const path of ['/CerteCF/certificacion', '/CerteCF/certificacion/firmas']) {
    assert.equal((await call(t.url, 'GET', path, { headers: { 'x-api-key': a.apiKey } })).status, 401, path);
  }
  const [n] = await t.sql<{ n: number }[]>`select count(*)::int as n from portal_signatures where tenant_id = ${a.tenantId}`;
  assert.equal(n?.n, 0);
});

test('without a certificate the postulación is 409; another tenant cannot read a signature', async () => {
  const plain = await newTenant(t.url);
  assert.equal((await sign(plain.accessToken, postulacionXml(plain.rnc))).status, 409);
  const a = await newTenantWithCertificate(t.url);
  const id = (await sign(a.accessToken, postulacionXml(a.rnc))).headers.get('x-firma-id');
  const other = await call(t.url, 'GET', `/CerteCF/certificacion/firmas/${id}`, { headers: { authorization: `Bearer ${plain.accessToken}` } });
  assert.equal(other.status, 404);
});

test('progress lists the fifteen portal steps; the signed postulación and the taxpayer\'s marks move them', async () => {
  const a = await newTenantWithCertificate(t.url);
  const auth = { authorization: `Bearer ${a.accessToken}` };
  const first = await call(t.url, 'GET', '/CerteCF/certificacion', { headers: auth });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.body.success, true);
  const pasos: Loose[] = first.body.data.pasos;
  assert.equal(pasos.length, 15);
  assert.deepEqual(pasos.map((p) => p.numero), Array.from({ length: 15 }, (_, i) => i + 1));
  assert.ok(pasos.every((p) => p.estado === 'pendiente' && typeof p.nombre === 'string' && typeof p.faltante === 'string'));
  assert.match(pasos[6].faltante, new RegExp(`/CerteCF/receptor/${a.rnc}`), 'the receiver URL to register');

  assert.equal((await sign(a.accessToken, postulacionXml(a.rnc))).status, 200);
  const marked = await call(t.url, 'PUT', '/CerteCF/certificacion/pasos/declaracion_jurada', { json: { estado: 'completado', nota: 'Firmada en la OFV' }, headers: auth });
  assert.equal(marked.status, 200, marked.text);
  assert.deepEqual([marked.body.data.estado, marked.body.data.origen, marked.body.data.nota], ['completado', 'marcado', 'Firmada en la OFV']);
  const now = (await call(t.url, 'GET', '/CerteCF/certificacion', { headers: auth })).body.data;
  const byKey = new Map(now.pasos.map((p: Loose) => [p.clave, p]));
  assert.deepEqual([(byKey.get('postulacion') as Loose).estado, (byKey.get('postulacion') as Loose).origen, (byKey.get('postulacion') as Loose).faltante], ['completado', 'servicio', null]);
  assert.equal((byKey.get('declaracion_jurada') as Loose).estado, 'completado');
  assert.equal(now.completados, 2);
  const elsewhere = (await call(t.url, 'GET', '/TesteCF/certificacion', { headers: auth })).body.data;
  assert.equal(elsewhere.pasos.find((p: Loose) => p.clave === 'declaracion_jurada').estado, 'pendiente', 'marks are per environment');

  assert.equal((await call(t.url, 'PUT', '/CerteCF/certificacion/pasos/no_existe', { json: { estado: 'completado' }, headers: auth })).status, 404);
  assert.equal((await call(t.url, 'PUT', '/CerteCF/certificacion/pasos/finalizado', { json: { estado: 'listo' }, headers: auth })).status, 422);
  assert.equal((await call(t.url, 'PUT', '/CerteCF/certificacion/pasos/finalizado', { json: { estado: 'completado', nota: 'x'.repeat(501) }, headers: auth })).status, 422);
  assert.equal((await call(t.url, 'PUT', '/CerteCF/certificacion/pasos/finalizado', { json: { estado: 'completado' }, headers: { 'x-api-key': a.apiKey } })).status, 401);
});
