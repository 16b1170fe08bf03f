import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { verifyXml } from '../src/xml/index.ts';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { arecfOutcome, FeSender, multipartXml, receiverBase, SENDER_SUBJECT, signedEcfTo, xmllintValidates } from './helpers/fe-sender.ts';
import { call, newTenant } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';

let t: TestService;
let certs: CertificateFactory;
let senderCredentials: DgiiCredentials;

before(async () => {
  t = await startTestService({ env: { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  certs = new CertificateFactory();
  senderCredentials = certs.make(SENDER_SUBJECT);
});
after(async () => {
  await t.close();
  certs.remove();
});

/** A tenant with an uploaded certificate, and a sender authenticated to its receiver. */
async function receiverAndSender(env = 'TesteCF') {
  const tenant = await newTenantWithCertificate(t.url);
  const sender = new FeSender(t.url, receiverBase(env, tenant.rnc), senderCredentials);
  return { tenant, sender, token: await sender.token() };
}

test('a signed e-CF gets an ARECF Estado 0 signed with the tenant\'s certificate, valid against arecf.xsd', async () => {
  const { tenant, sender, token } = await receiverAndSender();
  const { xml, encf } = signedEcfTo(senderCredentials, { rncComprador: tenant.rnc });
  const res = await sender.send('recepcion', xml, token);
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/xml/);
  assert.deepEqual(arecfOutcome(res.text), { estado: '0', motivo: undefined, encf, rncEmisor: '131880681', rncComprador: tenant.rnc });

  const verified = verifyXml(res.text);
  assert.equal(verified.valid, true);
  const tenantCertificate = new X509Certificate(readFileSync(tenant.certificate.certificatePath));
  assert.equal(verified.valid && verified.certificate.fingerprint256, tenantCertificate.fingerprint256);
  const lint = xmllintValidates('arecf.xsd', res.text);
  assert.ok(lint.ok, lint.output);
});

test('a received e-CF is listed with its JSON, its XML as sent, its ARECF, and an ecf.received event', async () => {
  const { tenant, sender, token } = await receiverAndSender();
  const { xml, encf } = signedEcfTo(senderCredentials, { rncComprador: tenant.rnc });
  const answer = await sender.send('recepcion', xml, token);
  assert.equal(arecfOutcome(answer.text).estado, '0');

  const api = { 'x-api-key': tenant.apiKey };
  const list = await call(t.url, 'GET', '/TesteCF/documentos-recibidos', { headers: api });
  assert.equal(list.status, 200, list.text);
  assert.equal(list.body.data.items.length, 1);
  const item = list.body.data.items[0];
  assert.equal(item.encf, encf);
  assert.equal(item.rncEmisor, '131880681');
  assert.equal(item.rncComprador, tenant.rnc);
  assert.equal(item.tipo, 31);
  assert.match(item.fechaEmision, /^\d{2}-\d{2}-\d{4}$/);
  assert.equal(item.codigoSeguridad.length, 6);

  const detail = await call(t.url, 'GET', `/TesteCF/documentos-recibidos/${item.id}`, { headers: { authorization: `Bearer ${tenant.accessToken}` } });
  assert.equal(detail.status, 200);
  assert.equal(detail.body.data.document.ECF.Encabezado.IdDoc.eNCF, encf);
  assert.match(detail.body.data.signerSubject, /Distribuidora Caribe Digital/);

  const stored = await call(t.url, 'GET', `/TesteCF/documentos-recibidos/${item.id}/xml`, { headers: api });
  assert.equal(stored.status, 200);
  assert.equal(stored.text, xml);
  const arecf = await call(t.url, 'GET', `/TesteCF/documentos-recibidos/${item.id}/arecf`, { headers: api });
  assert.equal(arecf.text, answer.text);

  const events = await t.sql<{ body: string }[]>`select body from events where tenant_id = ${tenant.tenantId} and kind = 'ecf.received'`;
  assert.equal(events.length, 1);
  const payload = JSON.parse((events[0] as { body: string }).body);
  assert.equal(payload.event, 'ecf.received');
  assert.equal(payload.id, item.id);
  assert.equal(payload.encf, encf);

  // Other environments and other tenants do not see it.
  assert.equal((await call(t.url, 'GET', '/CerteCF/documentos-recibidos', { headers: api })).body.data.items.length, 0);
  const other = await newTenant(t.url);
  assert.equal((await call(t.url, 'GET', `/TesteCF/documentos-recibidos/${item.id}`, { headers: { 'x-api-key': other.apiKey } })).status, 404);
});

test('the list pages newest first with a cursor and filters by emisor and eNCF', async () => {
  const { tenant, sender, token } = await receiverAndSender();
  const sent: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { xml, encf } = signedEcfTo(senderCredentials, { rncComprador: tenant.rnc });
    assert.equal(arecfOutcome((await sender.send('recepcion', xml, token)).text).estado, '0');
    sent.push(encf);
  }
  const api = { 'x-api-key': tenant.apiKey };
  const first = await call(t.url, 'GET', '/TesteCF/documentos-recibidos?pageSize=2', { headers: api });
  assert.deepEqual(first.body.data.items.map((i: { encf: string }) => i.encf), [sent[2], sent[1]]);
  const second = await call(t.url, 'GET', `/TesteCF/documentos-recibidos?pageSize=2&cursor=${first.body.data.nextCursor}`, { headers: api });
  assert.deepEqual(second.body.data.items.map((i: { encf: string }) => i.encf), [sent[0]]);
  assert.equal(second.body.data.nextCursor, null);
  const byEncf = await call(t.url, 'GET', `/TesteCF/documentos-recibidos?encf=${sent[1]}&rncEmisor=131880681`, { headers: api });
  assert.deepEqual(byEncf.body.data.items.map((i: { encf: string }) => i.encf), [sent[1]]);
  assert.equal((await call(t.url, 'GET', '/TesteCF/documentos-recibidos?rncEmisor=999999999', { headers: api })).body.data.items.length, 0);
  const bad = await call(t.url, 'GET', '/TesteCF/documentos-recibidos?rncEmisor=abc&colour=red', { headers: api });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), ['query.colour', 'query.rncEmisor']);
});

test('the same emisor and eNCF sent twice gets Estado 1 with motivo 3 and is stored once', async () => {
  const { tenant, sender, token } = await receiverAndSender();
  const { xml } = signedEcfTo(senderCredentials, { rncComprador: tenant.rnc });
  assert.equal(arecfOutcome((await sender.send('recepcion', xml, token)).text).estado, '0');
  const again = await sender.send('recepcion', xml, token);
  assert.equal(again.status, 200);
  assert.deepEqual([arecfOutcome(again.text).estado, arecfOutcome(again.text).motivo], ['1', '3']);
  assert.equal(verifyXml(again.text).valid, true);
  const [row] = await t.sql<{ n: number }[]>`select count(*)::int as n from received_documents where tenant_id = ${tenant.tenantId}`;
  assert.equal(row?.n, 1);
  const [events] = await t.sql<{ n: number }[]>`select count(*)::int as n from events where tenant_id = ${tenant.tenantId} and kind = 'ecf.received'`;
  assert.equal(events?.n, 1);
});

test('an e-CF for another buyer gets motivo 4, naming the buyer it was issued to', async () => {
  const { tenant, sender, token } = await receiverAndSender();
  const { xml, encf } = signedEcfTo(senderCredentials, { rncComprador: '101672919' });
  const res = await sender.send('recepcion', xml, token);
  assert.equal(res.status, 200);
  assert.deepEqual(arecfOutcome(res.text), { estado: '1', motivo: '4', encf, rncEmisor: '131880681', rncComprador: '101672919' });
  assert.ok(xmllintValidates('arecf.xsd', res.text).ok);
  const [row] = await t.sql<{ n: number }[]>`select count(*)::int as n from received_documents where tenant_id = ${tenant.tenantId}`;
  assert.equal(row?.n, 0);
});

test('a document changed after signing, or signed with an expired certificate, gets motivo 2', async () => {
  const { tenant, sender, token } = await receiverAndSender();
  const { xml } = signedEcfTo(senderCredentials, { rncComprador: tenant.rnc });
  const tampered = xml.replace('Distribuidora Caribe Digital SRL', 'Distribuidora Caribe Digital SA');
  assert.notEqual(tampered, xml);
  const res = await sender.send('recepcion', tampered, token);
  assert.deepEqual([arecfOutcome(res.text).estado, arecfOutcome(res.text).motivo], ['1', '2']);

  const expired = certs.make(SENDER_SUBJECT, { days: -1 });
  const byExpired = await sender.send('recepcion', signedEcfTo(expired, { rncComprador: tenant.rnc }).xml, token);
  assert.deepEqual([arecfOutcome(byExpired.text).estado, arecfOutcome(byExpired.text).motivo], ['1', '2']);

  // The refusal stored nothing, so the intact document is still received.
  assert.equal(arecfOutcome((await sender.send('recepcion', xml, token)).text).estado, '0');
});

test('a signed e-CF that breaks the schema gets motivo 1', async () => {
  const { tenant, sender, token } = await receiverAndSender();
  const { xml, encf } = signedEcfTo(senderCredentials, {
    rncComprador: tenant.rnc,
    beforeSigning: (unsigned) => unsigned.replace(/<MontoTotal>[^<]*<\/MontoTotal>/, '<MontoTotal>mucho</MontoTotal>'),
  });
  const res = await sender.send('recepcion', xml, token);
  assert.equal(res.status, 200);
  assert.deepEqual(arecfOutcome(res.text), { estado: '1', motivo: '1', encf, rncEmisor: '131880681', rncComprador: tenant.rnc });
  assert.equal(verifyXml(res.text).valid, true);
});

test('reception needs a live token this receiver issued for this environment', async () => {
  const { tenant, sender, token } = await receiverAndSender();
  const { xml } = signedEcfTo(senderCredentials, { rncComprador: tenant.rnc });
  const none = await sender.send('recepcion', xml, null);
  assert.equal(none.status, 401);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer');
  assert.equal((await sender.send('recepcion', xml, 'not-a-token')).status, 401);
  assert.equal((await sender.send('recepcion', xml, null, { authorization: 'Basic abc' })).status, 401);

  // Another tenant's receiver and another environment issued their own tokens.
  const other = await receiverAndSender();
  assert.equal((await sender.send('recepcion', xml, other.token)).status, 401);
  const certe = new FeSender(t.url, receiverBase('CerteCF', tenant.rnc), senderCredentials);
  assert.equal((await certe.send('recepcion', xml, token)).status, 401);
  // The service's own access tokens are not receiver tokens.
  assert.equal((await sender.send('recepcion', xml, tenant.accessToken)).status, 401);

  await t.sql`update receiver_tokens set expires_at = now() - interval '1 second' where tenant_id = ${tenant.tenantId}`;
  assert.equal((await sender.send('recepcion', xml, token)).status, 401);
  const fresh = await sender.token();
  assert.equal(arecfOutcome((await sender.send('recepcion', xml, fresh)).text).estado, '0');
});

test('a seed is good for one attempt, for the receiver and environment that issued it, until it expires', async () => {
  const tenant = await newTenantWithCertificate(t.url);
  const sender = new FeSender(t.url, receiverBase('TesteCF', tenant.rnc), senderCredentials);
  const seed = await sender.seed();
  assert.equal(seed.status, 200);
  assert.match(seed.headers.get('content-type') ?? '', /^application\/xml/);
  assert.match(seed.text, /^<\?xml[^>]*\?><SemillaModel[^>]*><valor>[A-Za-z0-9+/=]{40,}<\/valor><fecha>\d{4}-\d{2}-\d{2}T[\d:.]+-04:00<\/fecha><\/SemillaModel>$/);
  const signed = sender.sign(seed.text);
  const first = await sender.validate(signed);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(Object.keys(first.body).sort(), ['expedido', 'expira', 'token']);
  const lifetime = Date.parse(first.body.expira) - Date.parse(first.body.expedido);
  assert.equal(lifetime, 3_600_000);
  // DGII's token dates: yyyy-MM-ddTHH:mm:ssZ, no milliseconds.
  for (const date of [first.body.expira, first.body.expedido]) assert.match(date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  // With Accept: application/xml, DGII's XML form of the same answer.
  const asXml = await sender.validate(sender.sign((await sender.seed()).text), 'application/xml');
  assert.equal(asXml.status, 200, asXml.text);
  assert.match(asXml.headers.get('content-type') ?? '', /^application\/xml/);
  assert.match(asXml.text, /<RespuestaAutenticacion><token>[A-Za-z0-9_-]{40,}<\/token><expira>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z<\/expira><expedido>[\dT:Z-]+<\/expedido><\/RespuestaAutenticacion>$/);
  const reused = await sender.validate(signed);
  assert.equal(reused.status, 400);
  assert.match(reused.body.error.message, /semilla/);

  // Another receiver, or another environment of this one, never issued it.
  const elsewhere = await newTenantWithCertificate(t.url);
  const seedHere = sender.sign((await sender.seed()).text);
  assert.equal((await new FeSender(t.url, receiverBase('TesteCF', elsewhere.rnc), senderCredentials).validate(seedHere)).status, 400);
  assert.equal((await new FeSender(t.url, receiverBase('eCF', tenant.rnc), senderCredentials).validate(seedHere)).status, 400);

  const late = sender.sign((await sender.seed()).text);
  await t.sql`update receiver_seeds set expires_at = now() - interval '1 second' where tenant_id = ${tenant.tenantId}`;
  assert.equal((await sender.validate(late)).status, 400);

  const unsignedSeed = await sender.seed();
  assert.equal((await sender.validate(unsignedSeed.text)).status, 400);
  const tampered = sender.sign((await sender.seed()).text).replace(/<valor>./, '<valor>#');
  assert.equal((await sender.validate(tampered)).status, 400);
});

test('a seed signed with an expired certificate earns no token', async () => {
  const tenant = await newTenantWithCertificate(t.url);
  const sender = new FeSender(t.url, receiverBase('TesteCF', tenant.rnc), certs.make(SENDER_SUBJECT, { days: -1 }));
  const res = await sender.validate(sender.sign((await sender.seed()).text));
  assert.equal(res.status, 401);
  assert.match(res.body.error.message, /venció/);
});

test('a tenant without a certificate refuses e-CF with 409 and stores nothing', async () => {
  const tenant = await newTenant(t.url);
  const sender = new FeSender(t.url, receiverBase('TesteCF', tenant.rnc), senderCredentials);
  const token = await sender.token();
  const res = await sender.send('recepcion', signedEcfTo(senderCredentials, { rncComprador: tenant.rnc }).xml, token);
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, 'CONFLICT');
  assert.match(res.body.error.message, /certificado/);
  const [row] = await t.sql<{ n: number }[]>`select count(*)::int as n from received_documents where tenant_id = ${tenant.tenantId}`;
  assert.equal(row?.n, 0);
});

test('receiver paths match in any case, and an unknown RNC is 404', async () => {
  const tenant = await newTenantWithCertificate(t.url);
  const sender = new FeSender(t.url, receiverBase('TesteCF', tenant.rnc), senderCredentials);
  const seed = await call(t.url, 'GET', `/TESTECF/Receptor/${tenant.rnc}/FE/Autenticacion/API/Semilla`);
  assert.equal(seed.status, 200);
  const validated = await call(t.url, 'POST', `/testecf/receptor/${tenant.rnc}/fe/AUTENTICACION/api/ValidacionCertificado`, multipartXml(sender.sign(seed.text)));
  assert.equal(validated.status, 200, validated.text);
  const upload = multipartXml(signedEcfTo(senderCredentials, { rncComprador: tenant.rnc }).xml);
  const res = await call(t.url, 'POST', `/TesteCF/receptor/${tenant.rnc}/FE/Recepcion/Api/ECF`, {
    body: upload.body,
    headers: { ...upload.headers, authorization: `Bearer ${validated.body.token}` },
  });
  assert.equal(arecfOutcome(res.text).estado, '0');

  assert.equal((await call(t.url, 'GET', '/TesteCF/receptor/999999999/fe/autenticacion/api/semilla')).status, 404);
  assert.equal((await call(t.url, 'GET', '/TesteCF/receptor/not-an-rnc/fe/autenticacion/api/semilla')).status, 404);
  assert.equal((await call(t.url, 'GET', `/NoEnv/receptor/${tenant.rnc}/fe/autenticacion/api/semilla`)).status, 404);
});

test('the OpenAPI document describes the receiver group under the Receptor tag and its two budgets', async () => {
  const doc = (await call(t.url, 'GET', '/openapi.json')).body;
  const recepcion = doc.paths['/{env}/receptor/{rnc}/fe/recepcion/api/ecf'].post;
  assert.deepEqual(recepcion.tags, ['Receptor']);
  assert.match(recepcion.description, /receiverAnonymous/);
  assert.equal(doc.paths['/{env}/receptor/{rnc}/fe/autenticacion/api/semilla'].get['x-rate-limit-scope'], 'receiverAnonymous');
  assert.ok(recepcion.responses['409'] !== undefined);
  assert.equal(doc.paths['/{env}/documentos-recibidos'].get.tags[0], 'Receptor');
  assert.ok(doc.components.schemas.ReceivedDocumentSummary !== undefined);
});
