import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseXml, textAt } from '../src/xml/index.ts';
import { call, newTenant } from './helpers/http.ts';
import { makeTestCertificate, newTenantWithCertificate, uploadCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';

// Emit → sign → DGII's protocol (seed, token, reception, status; RFCE for small type 32)
// against the simulator the service starts by default → verdict. The signed XML is checked
// by two independent tools: xmllint against DGII's XSD, xmlsec1 for the signature.

const XSD_DIR = fileURLToPath(new URL('../src/ecf/xsd/', import.meta.url));

let t: TestService;
let dir = '';
before(async () => {
  t = await startTestService({ env: FAST_PIPELINE });
  dir = await mkdtemp(join(tmpdir(), 'ecf-e2e-'));
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
async function tool(command: string, args: (file: string) => string[], xml: string): Promise<{ status: number | null; output: string }> {
  const file = join(dir, `doc-${++files}.xml`);
  await writeFile(file, xml);
  const run = spawnSync(command, args(file), { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const xmllint = (xml: string, xsd: string) => tool('xmllint', (f) => ['--noout', '--schema', join(XSD_DIR, xsd), f], xml);
const xmlsec1 = (xml: string, certificatePath: string) => tool('xmlsec1', (f) => ['--verify', '--trusted-pem', certificatePath, f], xml);

function signatureValue(xml: string): string {
  const value = textAt(parseXml(xml).root, ['Signature', 'SignatureValue']);
  assert.ok(value !== undefined, 'the XML carries a SignatureValue');
  return value.replace(/\s+/g, '');
}

async function emitAndWait(a: Awaited<ReturnType<typeof newTenant>>, tipo: 31 | 32, estados: string[]) {
  const headers = { 'x-api-key': a.apiKey };
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, tipo), headers });
  assert.equal(res.status, 202, res.text);
  const doc = await waitForEstado(t.url, 'TesteCF', res.body.data.internalTrackId, headers, estados);
  return { doc, headers };
}

describe('end to end against the DGII simulator', () => {
  test('a type 31 is signed, validates, verifies, goes through the DGII protocol and is aceptado', async () => {
    const a = await newTenantWithCertificate(t.url);
    const counters = t.service.simulator?.counters();
    const { doc, headers } = await emitAndWait(a, 31, ['aceptado']);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'en_proceso', 'aceptado']);
    assert.equal(doc.dgiiCode, '0');
    assert.match(doc.trackId, /^[0-9a-f-]{36}$/);

    const xml = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${doc.internalTrackId}/xml`, { headers });
    assert.equal(xml.status, 200);
    assert.equal(xml.headers.get('content-type'), 'application/xml; charset=utf-8');
    const schema = await xmllint(xml.text, 'ecf-31.xsd');
    assert.equal(schema.status, 0, schema.output);
    const signature = await xmlsec1(xml.text, a.certificate.certificatePath);
    assert.equal(signature.status, 0, signature.output);

    const root = parseXml(xml.text).root;
    assert.equal(textAt(root, ['Encabezado', 'IdDoc', 'eNCF']), doc.encf);
    assert.equal(textAt(root, ['FechaHoraFirma']), doc.fechaHoraFirma);
    assert.match(doc.fechaHoraFirma, /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    assert.equal(doc.securityCode, signatureValue(xml.text).slice(0, 6));
    const montoTotal = textAt(root, ['Encabezado', 'Totales', 'MontoTotal']) ?? '';
    const expected = new URL('https://ecf.dgii.gov.do/testecf/ConsultaTimbre');
    for (const [name, value] of [['RncEmisor', a.rnc], ['RncComprador', doc.rncComprador], ['ENCF', doc.encf], ['FechaEmision', doc.fechaEmision],
      ['MontoTotal', montoTotal], ['FechaFirma', doc.fechaHoraFirma], ['CodigoSeguridad', doc.securityCode]]) expected.searchParams.append(name, value);
    assert.deepEqual(Object.fromEntries(new URL(doc.timbreUrl).searchParams), Object.fromEntries(expected.searchParams));
    assert.ok(doc.timbreUrl.startsWith('https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor='));
    assert.doesNotMatch(doc.timbreUrl, / /, 'percent-encoded');

    // The simulator saw the whole protocol: a seed signed for a token, then the upload and status queries.
    const now = t.service.simulator?.counters();
    assert.ok(counters !== undefined && now !== undefined);
    assert.ok(now.tokensIssued > counters.tokensIssued);
    assert.ok(now.documentsReceived > counters.documentsReceived);
    assert.ok(now.statusQueries > counters.statusQueries);

    const list = await call(t.url, 'GET', `/TesteCF/documentos-ecf?encf=${doc.encf}`, { headers });
    assert.deepEqual(list.body.data.items.map((d: { securityCode: string; timbreUrl: string }) => [d.securityCode, d.timbreUrl]), [[doc.securityCode, doc.timbreUrl]]);
  });

  test('a small type 32 travels as a signed RFCE, is aceptado at once and carries the FC timbre URL', async () => {
    const a = await newTenantWithCertificate(t.url);
    const summaries = t.service.simulator?.counters().summariesReceived ?? 0;
    const { doc, headers } = await emitAndWait(a, 32, ['aceptado']);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'aceptado']);
    assert.equal(doc.trackId, null);
    assert.equal(t.service.simulator?.counters().summariesReceived, summaries + 1);

    const xml = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${doc.internalTrackId}/xml`, { headers });
    assert.equal((await xmllint(xml.text, 'ecf-32.xsd')).status, 0);
    assert.equal((await xmlsec1(xml.text, a.certificate.certificatePath)).status, 0);
    const [row] = await t.sql<{ rfceXml: string }[]>`select rfce_xml from documents where id = ${doc.internalTrackId}`;
    const rfce = row?.rfceXml ?? '';
    const rfceSchema = await xmllint(rfce, 'rfce-32.libxml2.xsd');
    assert.equal(rfceSchema.status, 0, rfceSchema.output);
    assert.equal((await xmlsec1(rfce, a.certificate.certificatePath)).status, 0);
    assert.equal(textAt(parseXml(rfce).root, ['Encabezado', 'CodigoSeguridadeCF']), doc.securityCode, 'the RFCE carries the e-CF\'s security code');

    const timbre = new URL(doc.timbreUrl);
    assert.equal(`${timbre.origin}${timbre.pathname}`, 'https://fc.dgii.gov.do/testecf/ConsultaTimbreFC');
    assert.deepEqual([...timbre.searchParams.keys()], ['RncEmisor', 'ENCF', 'MontoTotal', 'CodigoSeguridad']);
    assert.equal(timbre.searchParams.get('CodigoSeguridad'), doc.securityCode);
  });

  test('a tenant without a certificate gets error with the clear message', async () => {
    const a = await newTenant(t.url);
    const { doc } = await emitAndWait(a, 31, ['error']);
    assert.equal(doc.dgiiMessage, 'No valid certificate: upload one with POST /api/certificates');
  });

  test('a certificate of another holder than the tenant\'s RNC is refused by DGII with its reason', async () => {
    const a = await newTenant(t.url);
    const upload = await uploadCertificate(t.url, a.accessToken, makeTestCertificate('401506254'));
    assert.equal(upload.status, 201, upload.text);
    assert.equal(upload.body.data.holderId, '401506254');
    const { doc } = await emitAndWait(a, 31, ['error']);
    assert.match(doc.dgiiMessage, new RegExp(`El RNCEmisor ${a.rnc} del documento no corresponde al RNC 401506254 del token`));
  });
});
