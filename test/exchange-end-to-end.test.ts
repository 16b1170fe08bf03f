import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleEcf } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { arecfOutcome, xmllintValidates } from './helpers/fe-sender.ts';
import { call, type Loose } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';
import { verifyXml } from '../src/xml/index.ts';

// Two tenants of one running service exchange a type 31 over real HTTP, through the in-process
// DGII simulator's directory (which lists the service's own tenants): A emits to B, DGII
// accepts, A's job delivers it to B's receiver and keeps B's signed ARECF, B approves or
// rejects, and A sees the commercial approval; A's webhook gets both events.

let t: TestService;
let hooks: Receiver;

before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', EXCHANGE_RETRY_BASE_MS: '20', EXCHANGE_RETRY_MAX_MS: '50', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000' } });
  hooks = await startReceiver();
});
after(async () => {
  await t.close();
  await hooks.close();
});

type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;

async function emitTo(a: Tenant, rncComprador: string): Promise<string> {
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc }, Comprador: { RNCComprador: rncComprador } } }),
    headers: { 'x-api-key': a.apiKey },
  });
  assert.equal(res.status, 202, res.text);
  return res.body.data.internalTrackId as string;
}

async function documentOf(a: Tenant, id: string): Promise<Loose> {
  return (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: { 'x-api-key': a.apiKey } })).body.data;
}

async function receivedBy(b: Tenant, encf: string): Promise<Loose> {
  return waitFor(async () => {
    const list = await call(t.url, 'GET', `/TesteCF/documentos-recibidos?encf=${encf}`, { headers: { 'x-api-key': b.apiKey } });
    return list.body.data.items[0];
  }, 20_000, 'the e-CF in B\'s documentos-recibidos');
}

test('A emits a type 31 to B: B receives it, A keeps B\'s signed ARECF, B approves, A sees the approval and both events', async () => {
  const a = await newTenantWithCertificate(t.url);
  const b = await newTenantWithCertificate(t.url);
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: hooks.url }, headers: { authorization: `Bearer ${a.accessToken}` } })).status, 200);
  const id = await emitTo(a, b.rnc);

  const delivered = await waitFor(async () => {
    const d = await documentOf(a, id);
    return d.receptor.estado !== 'pendiente' ? d : undefined;
  }, 30_000, 'the buyer leg');
  assert.equal(delivered.estado, 'aceptado');
  assert.equal(delivered.receptor.estado, 'recibido', JSON.stringify(delivered.receptor));
  assert.ok(delivered.receptor.receivedAt !== null);

  const received = await receivedBy(b, delivered.encf);
  assert.equal(received.rncEmisor, a.rnc);
  const detail = (await call(t.url, 'GET', `/TesteCF/documentos-recibidos/${received.id}`, { headers: { 'x-api-key': b.apiKey } })).body.data;
  assert.match(detail.signerSubject, new RegExp(a.rnc));

  const arecf = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}/arecf`, { headers: { 'x-api-key': a.apiKey } });
  assert.equal(arecf.status, 200);
  const verified = verifyXml(arecf.text);
  assert.ok(verified.valid, 'the ARECF is signed');
  assert.match(verified.certificate.subject, new RegExp(b.rnc));
  assert.deepEqual([arecfOutcome(arecf.text).estado, arecfOutcome(arecf.text).encf], ['0', delivered.encf]);

  const decided = await call(t.url, 'POST', `/TesteCF/documentos-recibidos/${received.id}/aprobacion`, { json: { estado: 'aprobado' }, headers: { 'x-api-key': b.apiKey, 'idempotency-key': `ap-${received.id}` } });
  assert.equal(decided.status, 202, decided.text);
  const replay = await call(t.url, 'POST', `/TesteCF/documentos-recibidos/${received.id}/aprobacion`, { json: { estado: 'aprobado' }, headers: { 'x-api-key': b.apiKey, 'idempotency-key': `ap-${received.id}` } });
  assert.equal(replay.status, 202);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  const second = await call(t.url, 'POST', `/TesteCF/documentos-recibidos/${received.id}/aprobacion`, { json: { estado: 'rechazado', motivo: 'Cambié de idea' }, headers: { 'x-api-key': b.apiKey } });
  assert.equal(second.status, 409, second.text);

  const approved = await waitFor(async () => {
    const d = await documentOf(a, id);
    return d.aprobacionComercial !== null ? d : undefined;
  }, 30_000, 'the approval on A\'s document');
  assert.equal(approved.aprobacionComercial.estado, 'aprobado');
  const legs = await waitFor(async () => {
    const d = (await call(t.url, 'GET', `/TesteCF/documentos-recibidos/${received.id}`, { headers: { 'x-api-key': b.apiKey } })).body.data;
    return d.aprobacionComercial.dgii.estado !== 'pendiente' && d.aprobacionComercial.emisor.estado !== 'pendiente' ? d.aprobacionComercial : undefined;
  }, 30_000, 'both legs of B\'s approval');
  assert.deepEqual([legs.emisor.estado, legs.dgii.estado], ['enviado', 'enviado'], JSON.stringify(legs));
  assert.equal(t.service.simulator?.counters().approvalsReceived, 1);

  const events = await waitFor(() => {
    const kinds = hooks.received.map((r) => r.json.event);
    return kinds.includes('ecf.receptor_update') && kinds.includes('ecf.commercial_approval') ? hooks.received : undefined;
  }, 30_000, 'both webhook events');
  const receptorEvent = events.find((e) => e.json.event === 'ecf.receptor_update');
  assert.equal((receptorEvent?.json.receptor as Loose).estado, 'recibido');
  const approvalEvent = events.find((e) => e.json.event === 'ecf.commercial_approval');
  assert.equal((approvalEvent?.json.aprobacionComercial as Loose).estado, 'aprobado');

  // One numbering for every event of the document: each number once, carried in the header
  // too, and growing in the order the events happened (recibido … aceptado, buyer leg, approval).
  const ofDocument = events.filter((e) => e.json.internalTrackId === id);
  const numbered = ofDocument.map((e) => {
    assert.equal(typeof e.json.sequence, 'number', `${String(e.json.event)} carries a sequence`);
    assert.equal(e.headers['x-ecf-event-sequence'], String(e.json.sequence));
    return { event: e.json.event, estado: e.json.estado, sequence: e.json.sequence as number };
  });
  const sequences = numbered.map((e) => e.sequence);
  assert.equal(new Set(sequences).size, sequences.length, JSON.stringify(numbered));
  const seqOf = (event: string, estado?: string): number => {
    const found = numbered.find((e) => e.event === event && (estado === undefined || e.estado === estado));
    assert.ok(found !== undefined, `${event} ${estado ?? ''} was delivered: ${JSON.stringify(numbered)}`);
    return found.sequence;
  };
  const order = [seqOf('ecf.status_update', 'recibido'), seqOf('ecf.status_update', 'en_proceso'), seqOf('ecf.status_update', 'aceptado'), seqOf('ecf.receptor_update'), seqOf('ecf.commercial_approval')];
  assert.deepEqual(order, [...order].sort((x, y) => x - y), JSON.stringify(numbered));
  assert.equal(order[0], 1);
});

test('B rejects with a reason: A\'s document shows rechazado with the motivo; a bad decision is 422', async () => {
  const a = await newTenantWithCertificate(t.url);
  const b = await newTenantWithCertificate(t.url);
  const id = await emitTo(a, b.rnc);
  await waitFor(async () => ((await documentOf(a, id)).receptor.estado === 'recibido' ? true : undefined), 30_000, 'delivery');
  const received = await receivedBy(b, (await documentOf(a, id)).encf);
  const path = `/TesteCF/documentos-recibidos/${received.id}/aprobacion`;
  for (const bad of [{ estado: 'rechazado' }, { estado: 'quizas' }, { estado: 'aprobado', motivo: 'x' }, { estado: 'rechazado', motivo: 'x'.repeat(251) }, [], { estado: 'aprobado', otro: 1 }]) {
    const res = await call(t.url, 'POST', path, { json: bad, headers: { 'x-api-key': b.apiKey } });
    assert.equal(res.status, 422, `${JSON.stringify(bad)}: ${res.text}`);
  }
  const res = await call(t.url, 'POST', path, { json: { estado: 'rechazado', motivo: 'Mercancía dañada' }, headers: { 'x-api-key': b.apiKey } });
  assert.equal(res.status, 202, res.text);
  const shown = await waitFor(async () => (await documentOf(a, id)).aprobacionComercial ?? undefined, 30_000, 'the rejection on A\'s document');
  assert.deepEqual([shown.estado, shown.motivo], ['rechazado', 'Mercancía dañada']);
  const rows = await t.sql<{ xml: string }[]>`select xml from sent_approvals where received_document_id = ${received.id}`;
  const check = xmllintValidates('acecf.libxml2.xsd', (rows[0]?.xml ?? '').replace(/<Signature[\s\S]*<\/Signature>/, ''));
  assert.ok(check.ok, check.output);
});

test('a buyer that is not in the directory is no_aplica; a buyer whose receiver refuses the e-CF (duplicate) is no_recibido with its motivo', async () => {
  const a = await newTenantWithCertificate(t.url);
  const stranger = await emitTo(a, '101010101');
  const notListed = await waitFor(async () => {
    const d = await documentOf(a, stranger);
    return d.estado === 'aceptado' && d.receptor.estado !== 'pendiente' ? d : undefined;
  }, 30_000, 'the buyer leg to an unlisted RNC');
  assert.equal(notListed.receptor.estado, 'no_aplica');
  assert.match(notListed.receptor.detalle, /directory/);

  // B already holds an e-CF of A under the eNCF A is about to use: B's receiver answers ARECF
  // Estado 1, CodigoMotivoNoRecibido 3 (envío duplicado).
  const b = await newTenantWithCertificate(t.url);
  const encf = 'E310000099001';
  await t.sql`
    insert into received_documents (id, tenant_id, environment, tipo, encf, rnc_emisor, razon_social_emisor, rnc_comprador, fecha_emision, monto_total, security_code, signer_subject, ecf, xml, arecf_xml)
    values (gen_random_uuid(), ${b.tenantId}, 'TesteCF', 31, ${encf}, ${a.rnc}, 'A', ${b.rnc}, '2025-01-01', 1, 'abcdef', 'x', '{}'::jsonb, '<x/>', '<x/>')`;
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: encf }, Emisor: { RNCEmisor: a.rnc }, Comprador: { RNCComprador: b.rnc } } }),
    headers: { 'x-api-key': a.apiKey },
  });
  assert.equal(res.status, 202, res.text);
  const id = res.body.data.internalTrackId as string;
  const d = await waitFor(async () => {
    const doc = await documentOf(a, id);
    return doc.estado === 'aceptado' && doc.receptor.estado !== 'pendiente' ? doc : undefined;
  }, 30_000, 'the buyer leg');
  assert.deepEqual([d.receptor.estado, d.receptor.motivo], ['no_recibido', '3'], JSON.stringify(d.receptor));
  const arecf = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}/arecf`, { headers: { 'x-api-key': a.apiKey } });
  assert.equal(arecfOutcome(arecf.text).motivo, '3');
});
