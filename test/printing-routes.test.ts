import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { arecfOutcome, FeSender, receiverBase, SENDER_RNC, SENDER_SUBJECT, signedEcfTo } from './helpers/fe-sender.ts';
import { newTenant, type Loose } from './helpers/http.ts';
import { PdfTools } from './helpers/pdf-tools.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { itemsOf } from './fixtures/ecf.ts';

let t: TestService;
let certs: CertificateFactory;
const tools = new PdfTools();

before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  certs = new CertificateFactory();
});
after(async () => {
  await t.close();
  certs.remove();
  tools.close();
});

async function getPdf(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers; pdf: Buffer; json: Loose }> {
  const res = await fetch(t.url + path, { headers });
  const pdf = Buffer.from(await res.arrayBuffer());
  let json: Loose = null;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(pdf.toString('utf8'));
  return { status: res.status, headers: res.headers, pdf, json };
}

function assertValidPdf(pdf: Buffer): void {
  const { status, output } = tools.check(pdf);
  assert.equal(status, 0, output);
}

test('a signed document\'s PDF is served inline as {RNCEmisor}{eNCF}.pdf in each format, its QR holding timbreUrl', async () => {
  const a = await newTenantWithCertificate(t.url);
  const api = { 'x-api-key': a.apiKey };
  for (const tipo of [31, 32] as const) {
    const emitted = await fetch(`${t.url}/TesteCF/documentos-ecf`, { method: 'POST', headers: { ...api, 'content-type': 'application/json' }, body: JSON.stringify(ecfFor(a.rnc, tipo)) });
    const id = ((await emitted.json()) as Loose).data.internalTrackId as string;
    const doc = await waitForEstado(t.url, 'TesteCF', id, api, ['aceptado']);
    assert.match(doc.timbreUrl, tipo === 32 ? /\/ConsultaTimbreFC\?/ : /\/ConsultaTimbre\?/);

    const res = await getPdf(`/TesteCF/documentos-ecf/${id}/pdf`, api);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('content-disposition'), `inline; filename="${a.rnc}${doc.encf}.pdf"`);
    assertValidPdf(res.pdf);
    const text = tools.text(res.pdf, ['-layout']).replace(/\s+/g, ' ');
    for (const needle of [doc.encf, a.rnc, `Código de seguridad: ${doc.securityCode}`, `Fecha de firma digital: ${doc.fechaHoraFirma}`]) {
      assert.ok(text.includes(needle), `"${needle}" in ${text}`);
    }
    assert.deepEqual(tools.readQrCodes(res.pdf), [doc.timbreUrl]);

    const bearer = { authorization: `Bearer ${a.accessToken}` };
    for (const [formato, width] of [['carta', '612'], ['a4', '595.28'], ['ticket80', '226.77']] as const) {
      const other = await getPdf(`/TesteCF/documentos-ecf/${id}/pdf?formato=${formato}`, bearer);
      assert.equal(other.status, 200, formato);
      assertValidPdf(other.pdf);
      assert.match(tools.info(other.pdf), new RegExp(`Page size:\\s+${width.replace('.', '\\.')} x`), formato);
      assert.deepEqual(tools.readQrCodes(other.pdf), [doc.timbreUrl], formato);
    }
  }
});

test('odd item names are printed with replacement characters; an unknown formato is 422, another tenant\'s document 404', async () => {
  const a = await newTenantWithCertificate(t.url);
  const api = { 'x-api-key': a.apiKey, 'content-type': 'application/json' };
  const body = ecfFor(a.rnc, 31);
  const [first, second] = itemsOf(body) as [Loose, Loose];
  first.NombreItem = 'Café 😀☕\tespecial';
  second.NombreItem = 'שלום עולם مرحبا بالعالم';
  const emitted = await fetch(`${t.url}/TesteCF/documentos-ecf`, { method: 'POST', headers: api, body: JSON.stringify(body) });
  assert.equal(emitted.status, 202);
  const id = ((await emitted.json()) as Loose).data.internalTrackId as string;
  await waitForEstado(t.url, 'TesteCF', id, api, ['aceptado']);

  const res = await getPdf(`/TesteCF/documentos-ecf/${id}/pdf`, api);
  assert.equal(res.status, 200);
  assertValidPdf(res.pdf);
  assert.match(tools.text(res.pdf), /Café \?\? especial/);

  for (const query of ['formato=legal', 'formato=', 'formato=a4&formato=carta', 'size=a4']) {
    const bad = await getPdf(`/TesteCF/documentos-ecf/${id}/pdf?${query}`, api);
    assert.equal(bad.status, query === 'formato=' ? 200 : 422, query);
    if (bad.status === 422) assert.equal(bad.json.error.code, 'VALIDATION_ERROR');
  }
  const stranger = await newTenant(t.url);
  const foreign = await getPdf(`/TesteCF/documentos-ecf/${id}/pdf`, { 'x-api-key': stranger.apiKey });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.json.error.code, 'NOT_FOUND');
  assert.equal((await getPdf(`/CerteCF/documentos-ecf/${id}/pdf`, api)).status, 404, 'another environment');
  assert.equal((await getPdf(`/TesteCF/documentos-ecf/${id}/pdf`, {})).status, 401);
});

test('a document that is not signed answers 409 DOCUMENT_NOT_SIGNED', async () => {
  const a = await newTenant(t.url); // no certificate: the document can never be signed
  const api = { 'x-api-key': a.apiKey };
  const emitted = await fetch(`${t.url}/TesteCF/documentos-ecf`, { method: 'POST', headers: { ...api, 'content-type': 'application/json' }, body: JSON.stringify(ecfFor(a.rnc, 31)) });
  const id = ((await emitted.json()) as Loose).data.internalTrackId as string;
  const early = await getPdf(`/TesteCF/documentos-ecf/${id}/pdf`, api);
  assert.equal(early.status, 409);
  assert.equal(early.json.error.code, 'DOCUMENT_NOT_SIGNED');
  await waitForEstado(t.url, 'TesteCF', id, api, ['error']);
  const late = await getPdf(`/TesteCF/documentos-ecf/${id}/pdf`, api);
  assert.equal(late.status, 409);
  assert.match(late.json.error.message, /never signed/);
});

test('a received e-CF prints with the timbre rebuilt from its XML; another tenant gets 404', async () => {
  const tenant = await newTenantWithCertificate(t.url);
  const senderCredentials = certs.make(SENDER_SUBJECT);
  const sender = new FeSender(t.url, receiverBase('TesteCF', tenant.rnc), senderCredentials);
  const { xml, encf } = signedEcfTo(senderCredentials, { rncComprador: tenant.rnc });
  const answer = await sender.send('recepcion', xml, await sender.token());
  assert.equal(arecfOutcome(answer.text).estado, '0');

  const api = { 'x-api-key': tenant.apiKey };
  const list = await (await fetch(`${t.url}/TesteCF/documentos-recibidos`, { headers: api })).json() as Loose;
  const item = list.data.items[0];
  const detail = (await (await fetch(`${t.url}/TesteCF/documentos-recibidos/${item.id}`, { headers: api })).json() as Loose).data;
  const ecf = detail.document.ECF;
  const res = await getPdf(`/TesteCF/documentos-recibidos/${item.id}/pdf?formato=a4`, api);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-disposition'), `inline; filename="${SENDER_RNC}${encf}.pdf"`);
  assertValidPdf(res.pdf);
  const query = new URLSearchParams({
    RncEmisor: SENDER_RNC, RncComprador: tenant.rnc, ENCF: encf, FechaEmision: ecf.Encabezado.Emisor.FechaEmision,
    MontoTotal: ecf.Encabezado.Totales.MontoTotal, FechaFirma: ecf.FechaHoraFirma, CodigoSeguridad: item.codigoSeguridad,
  }).toString().replaceAll('+', '%20');
  assert.deepEqual(tools.readQrCodes(res.pdf), [`https://ecf.dgii.gov.do/testecf/ConsultaTimbre?${query}`]);
  const text = tools.text(res.pdf, ['-layout']).replace(/\s+/g, ' ');
  for (const needle of [encf, SENDER_RNC, tenant.rnc, `Código de seguridad: ${item.codigoSeguridad}`]) assert.ok(text.includes(needle), needle);

  assert.equal((await getPdf(`/TesteCF/documentos-recibidos/${item.id}/pdf?formato=ticket`, api)).status, 422);
  const stranger = await newTenant(t.url);
  assert.equal((await getPdf(`/TesteCF/documentos-recibidos/${item.id}/pdf`, { 'x-api-key': stranger.apiKey })).status, 404);
});

test('a document DGII rejected prints RECHAZADO — sin validez fiscal, and every TesteCF document PRUEBA — sin validez fiscal, on every format', async () => {
  const a = await newTenantWithCertificate(t.url);
  const api = { 'x-api-key': a.apiKey, 'content-type': 'application/json' };
  const emit = async (marker: string | undefined): Promise<string> => {
    const body = marker === undefined ? ecfFor(a.rnc, 31) : ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc, InformacionAdicionalEmisor: marker } } });
    const res = await fetch(`${t.url}/TesteCF/documentos-ecf`, { method: 'POST', headers: api, body: JSON.stringify(body) });
    assert.equal(res.status, 202);
    return ((await res.json()) as Loose).data.internalTrackId as string;
  };
  const rejected = await emit('[simulador:rechazar]');
  const accepted = await emit(undefined);
  await waitForEstado(t.url, 'TesteCF', rejected, api, ['rechazado']);
  await waitForEstado(t.url, 'TesteCF', accepted, api, ['aceptado']);
  for (const formato of ['carta', 'a4', 'ticket80'] as const) {
    const bad = await getPdf(`/TesteCF/documentos-ecf/${rejected}/pdf?formato=${formato}`, api);
    assert.equal(bad.status, 200);
    assertValidPdf(bad.pdf);
    const badText = tools.text(bad.pdf);
    assert.ok(badText.includes('RECHAZADO — sin validez fiscal'), `${formato}: ${badText}`);
    assert.ok(badText.includes('PRUEBA — sin validez fiscal'), formato);
    const good = tools.text((await getPdf(`/TesteCF/documentos-ecf/${accepted}/pdf?formato=${formato}`, api)).pdf);
    assert.ok(good.includes('PRUEBA — sin validez fiscal'), formato);
    assert.ok(!good.includes('RECHAZADO'), formato);
  }
});
