import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleEcf } from './fixtures/ecf.ts';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FeSender, receiverBase, signedAcecf, type AcecfFields } from './helpers/fe-sender.ts';
import { call } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';

// The buyer of an e-CF a tenant issued sends the tenant its commercial approval (ACECF).

const BUYER_RNC = '101672919';

let t: TestService;
let certs: CertificateFactory;
let buyer: DgiiCredentials;

before(async () => {
  t = await startTestService({ env: { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  certs = new CertificateFactory();
  buyer = certs.make(`/CN=Ferreteria Ochoa SRL/serialNumber=${BUYER_RNC}`);
});
after(async () => {
  await t.close();
  certs.remove();
});

/** A tenant that issued an e-CF to BUYER_RNC, the ACECF fields matching it, and the buyer's sender. */
async function issuedDocument() {
  const tenant = await newTenantWithCertificate(t.url);
  const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: tenant.rnc }, Comprador: { RNCComprador: BUYER_RNC } } }),
    headers: { 'x-api-key': tenant.apiKey },
  });
  assert.equal(emitted.status, 202, emitted.text);
  const doc = emitted.body.data;
  const fields: AcecfFields = { rncEmisor: tenant.rnc, encf: doc.encf, fechaEmision: doc.fechaEmision, montoTotal: doc.montoTotal, rncComprador: BUYER_RNC, estado: 1 };
  const sender = new FeSender(t.url, receiverBase('TesteCF', tenant.rnc), buyer);
  return { tenant, documentId: doc.internalTrackId as string, fields, sender, token: await sender.token() };
}

test('an ACECF of an e-CF the tenant issued is stored against it; the same one again is answered alike', async () => {
  const { documentId, fields, sender, token } = await issuedDocument();
  const acecf = signedAcecf(buyer, fields);
  const res = await sender.send('aprobacioncomercial', acecf, token);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data, { encf: fields.encf, estado: 1 });
  const rows = await t.sql<{ estado: number; rncComprador: string; xml: string }[]>`select estado, rnc_comprador, xml from commercial_approvals where document_id = ${documentId}`;
  assert.equal(rows.length, 1);
  assert.deepEqual([rows[0]?.estado, rows[0]?.rncComprador, rows[0]?.xml], [1, BUYER_RNC, acecf]);

  assert.equal((await sender.send('aprobacioncomercial', acecf, token)).status, 200);
  const changedMind = await sender.send('aprobacioncomercial', signedAcecf(buyer, { ...fields, estado: 2, detalleMotivoRechazo: 'Mercancía dañada' }), token);
  assert.equal(changedMind.status, 400);
  assert.match(changedMind.body.error.message, /Ya se recibió/);
});

test('a rejection (Estado 2) with its reason is stored', async () => {
  const { documentId, fields, sender, token } = await issuedDocument();
  const res = await sender.send('aprobacioncomercial', signedAcecf(buyer, { ...fields, estado: 2, detalleMotivoRechazo: 'Precio distinto al acordado' }), token);
  assert.equal(res.status, 200, res.text);
  const [row] = await t.sql<{ estado: number; detalleMotivoRechazo: string }[]>`select estado, detalle_motivo_rechazo from commercial_approvals where document_id = ${documentId}`;
  assert.deepEqual([row?.estado, row?.detalleMotivoRechazo], [2, 'Precio distinto al acordado']);
});

test('an ACECF that does not match an e-CF the tenant issued is refused with 400 and a message', async () => {
  const { tenant, fields, sender, token } = await issuedDocument();
  const refusals: [Partial<AcecfFields>, RegExp][] = [
    [{ encf: 'E310000099999' }, /no ha emitido el e-CF/],
    [{ rncEmisor: '130458715' }, /no es el RNC/],
    [{ rncComprador: '130458715' }, /RNCComprador/],
    [{ montoTotal: '1.00' }, /MontoTotal/],
    [{ fechaEmision: '01-01-2020' }, /FechaEmision/],
  ];
  for (const [change, message] of refusals) {
    const res = await sender.send('aprobacioncomercial', signedAcecf(buyer, { ...fields, ...change }), token);
    assert.equal(res.status, 400, JSON.stringify(change));
    assert.match(res.body.error.message, message);
  }
  const tampered = signedAcecf(buyer, fields).replace('<Estado>1</Estado>', '<Estado>2</Estado>');
  const bad = await sender.send('aprobacioncomercial', tampered, token);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /firma/);
  const invalid = await sender.send('aprobacioncomercial', signedAcecf(buyer, { ...fields, montoTotal: '12' }), token);
  assert.equal(invalid.status, 400);
  assert.match(invalid.body.error.message, /esquema/);
  const impostor = certs.make('/CN=Otra Empresa SRL/serialNumber=130458715');
  const forged = await sender.send('aprobacioncomercial', signedAcecf(impostor, fields), token);
  assert.equal(forged.status, 400, 'signed by a certificate that is not the buyer\'s');
  assert.match(forged.body.error.message, /firmó la aprobación comercial es del RNC 130458715, no del RNCComprador 101672919/);
  assert.equal((await sender.send('aprobacioncomercial', signedAcecf(buyer, fields), null)).status, 401);
  const [row] = await t.sql<{ n: number }[]>`select count(*)::int as n from commercial_approvals where tenant_id = ${tenant.tenantId}`;
  assert.equal(row?.n, 0);
});
