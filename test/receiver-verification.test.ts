import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { documentFileName } from '../src/dgii/protocol/paths.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { CertificateFactory, type RunningSimulator, startSimulator } from './helpers/dgii-protocol.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { arecfOutcome, FeSender, receiverBase, signedAcecf, signedEcfTo } from './helpers/fe-sender.ts';
import { call, type Loose } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// A buyer's check with DGII and the v1.6 rules that need stored rows: a tenant of a service whose
// tax authority is a DGII simulator on its own port receives e-CF from an emisor X that uploads
// them to that simulator itself. An e-CF still "En Proceso" at DGII is asked about again until
// DGII decides; documents stored before the rules have no verification and take no approval of
// an excluded type; an ACECF about an excluded type is refused as DGII refuses it.

const ENV = 'TesteCF';
const RNC_X = '130000441';

let dgii: RunningSimulator;
let t: TestService;
let hooks: Receiver;
let certs: CertificateFactory;
let credentialsX: DgiiCredentials;

before(async () => {
  certs = new CertificateFactory();
  credentialsX = certs.make(`/CN=Emisor X SRL/serialNumber=${RNC_X}`);
  dgii = await startSimulator({ processingMs: 2_500 });
  t = await startTestService({
    env: {
      ...FAST_PIPELINE, TAX_AUTHORITY: 'dgii', DGII_BASE_URL_TESTECF: `${dgii.url}/testecf`, DGII_FC_BASE_URL_TESTECF: `${dgii.url}/fc/testecf`,
      DGII_BASE_URL_CERTECF: `${dgii.url}/certecf`, DGII_FC_BASE_URL_CERTECF: `${dgii.url}/fc/certecf`,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', EXCHANGE_RETRY_BASE_MS: '300', EXCHANGE_RETRY_MAX_MS: '400', EXCHANGE_MAX_ATTEMPTS: '15',
      RATE_LIMIT_SENSITIVE_PER_MINUTE: '100000',
    },
  });
  hooks = await startReceiver();
});
after(async () => {
  await t.close();
  await dgii.simulator.close();
  await hooks.close();
  certs.remove();
});

const receivedOf = async (apiKey: string, encf: string): Promise<Loose | undefined> =>
  (await call(t.url, 'GET', `/${ENV}/documentos-recibidos?encf=${encf}`, { headers: { 'x-api-key': apiKey } })).body.data.items[0];

test('an e-CF DGII is still processing is shown en_proceso and asked about again until DGII accepts it; one event, with the final answer', async () => {
  const b = await newTenantWithCertificate(t.url);
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: hooks.url }, headers: { authorization: `Bearer ${b.accessToken}` } })).status, 200);
  const { xml, encf } = signedEcfTo(credentialsX, { rncComprador: b.rnc, rncEmisor: RNC_X });
  // X sends it to DGII and to its buyer at the same time, as DGII's description allows.
  const client = dgii.client({ 1: credentialsX });
  const upload = await client.sendEcf(1, ENV, { fileName: documentFileName(RNC_X, encf), xml }, AbortSignal.timeout(10_000));
  assert.ok(upload.trackId.length > 0);
  const sender = new FeSender(t.url, receiverBase(ENV, b.rnc), credentialsX);
  const res = await sender.send('recepcion', xml, await sender.token());
  assert.equal(arecfOutcome(res.text).estado, '0');

  const seen: string[] = [];
  const final = await waitFor(async () => {
    const r = await receivedOf(b.apiKey, encf);
    const estado = r?.verificacionDgii?.estado as string | undefined;
    if (estado !== undefined && seen.at(-1) !== estado) seen.push(estado);
    return estado === 'aceptado' ? r : undefined;
  }, 30_000, 'verificacionDgii aceptado');
  assert.ok(seen.includes('en_proceso'), `DGII was asked while processing: ${seen.join(' → ')}`);
  assert.equal(final.verificacionDgii.codigo, 1);
  await waitFor(() => hooks.received.some((r) => r.json.event === 'ecf.received_verification' && r.json.encf === encf), 20_000, 'the verification event');
  const events = hooks.received.filter((r) => r.json.event === 'ecf.received_verification' && r.json.encf === encf);
  assert.equal(events.length, 1, 'no event for the answers that were asked again');
  assert.equal((events[0]?.json.verificacionDgii as Loose).estado, 'aceptado');
  assert.ok(dgii.simulator.counters().ecfStatusQueries >= 2);
});

test('in CerteCF, where DGII publishes no Consulta Estado, a received e-CF is no_disponible without asking DGII', async () => {
  const b = await newTenantWithCertificate(t.url);
  const before = dgii.simulator.counters().ecfStatusQueries;
  const { xml, encf } = signedEcfTo(credentialsX, { rncComprador: b.rnc, rncEmisor: RNC_X });
  const sender = new FeSender(t.url, receiverBase('CerteCF', b.rnc), credentialsX);
  assert.equal(arecfOutcome((await sender.send('recepcion', xml, await sender.token())).text).estado, '0');
  const r = await waitFor(async () => {
    const got = (await call(t.url, 'GET', `/CerteCF/documentos-recibidos?encf=${encf}`, { headers: { 'x-api-key': b.apiKey } })).body.data.items[0];
    return got?.verificacionDgii?.estado === 'pendiente' || got === undefined ? undefined : got;
  }, 30_000, 'the verification settled');
  assert.equal(r.verificacionDgii.estado, 'no_disponible');
  assert.equal(dgii.simulator.counters().ecfStatusQueries, before);
});

test('without the setting an e-CF DGII does not know stays no_encontrado and undecided; the setting reads back, and bad values are 422', async () => {
  const b = await newTenantWithCertificate(t.url);
  const auth = { authorization: `Bearer ${b.accessToken}` };
  const initial = await call(t.url, 'GET', '/api/receptor/settings', { headers: auth });
  assert.deepEqual(initial.body.data, { rechazarDesconocidosDgii: false });
  for (const bad of [{ rechazarDesconocidosDgii: 1 }, { otro: true }, []]) {
    assert.equal((await call(t.url, 'PUT', '/api/receptor/settings', { json: bad, headers: auth })).status, 422, JSON.stringify(bad));
  }
  const { xml, encf } = signedEcfTo(credentialsX, { rncComprador: b.rnc, rncEmisor: RNC_X });
  const sender = new FeSender(t.url, receiverBase(ENV, b.rnc), credentialsX);
  assert.equal(arecfOutcome((await sender.send('recepcion', xml, await sender.token())).text).estado, '0');
  const r = await waitFor(async () => {
    const got = await receivedOf(b.apiKey, encf);
    return got?.verificacionDgii?.estado === 'no_encontrado' ? got : undefined;
  }, 30_000, 'no_encontrado');
  // The job ends with its budget; the document stays the tenant's to decide.
  await waitFor(async () => ((await t.sql`select 1 from jobs where kind = 'receiver.verify' and payload->>'receivedId' = ${r.id as string}`).length === 0 ? true : undefined), 30_000, 'the verification job done');
  const detail = (await call(t.url, 'GET', `/${ENV}/documentos-recibidos/${r.id as string}`, { headers: { 'x-api-key': b.apiKey } })).body.data;
  assert.equal(detail.verificacionDgii.estado, 'no_encontrado');
  assert.equal(detail.aprobacionComercial, null);
  assert.equal((await call(t.url, 'GET', `/${ENV}/documentos-recibidos/${r.id as string}/acecf`, { headers: { 'x-api-key': b.apiKey } })).status, 404);
});

test('a type 32 received before the v1.6 rules shows no verification and cannot be approved (409); an ACECF about a type 32 is refused with DGII\'s words', async () => {
  const b = await newTenantWithCertificate(t.url);
  const [row] = await t.sql<{ id: string }[]>`
    insert into received_documents (id, tenant_id, environment, tipo, encf, rnc_emisor, razon_social_emisor, rnc_comprador, fecha_emision, monto_total, security_code, signer_subject, ecf, xml, arecf_xml, dgii_estado)
    values (gen_random_uuid(), ${b.tenantId}, ${ENV}, 32, 'E320000000077', ${RNC_X}, 'X', ${b.rnc}, '2025-01-01', 100, 'abcdef', 'x', '{}'::jsonb, '<x/>', '<x/>', null)
    returning id`;
  const id = row?.id as string;
  const shown = (await call(t.url, 'GET', `/${ENV}/documentos-recibidos/${id}`, { headers: { 'x-api-key': b.apiKey } })).body.data;
  assert.equal(shown.verificacionDgii, null);
  const res = await call(t.url, 'POST', `/${ENV}/documentos-recibidos/${id}/aprobacion`, { json: { estado: 'aprobado' }, headers: { 'x-api-key': b.apiKey } });
  assert.equal(res.status, 409, res.text);
  assert.equal(res.body.error.code, 'CONFLICT');
  assert.match(res.body.error.message, /no aplica al tipo de e-CF 32/);

  // As emisor: X, the buyer of a type 32 of B's, sends an ACECF about it.
  const credentialsBuyer = certs.make(`/CN=Comprador SRL/serialNumber=${RNC_X}`);
  const acecf = signedAcecf(credentialsBuyer, { rncEmisor: b.rnc, encf: 'E320000000078', fechaEmision: '01-01-2025', montoTotal: '100.00', rncComprador: RNC_X, estado: 1 });
  const sender = new FeSender(t.url, receiverBase(ENV, b.rnc), credentialsBuyer);
  const refused = await sender.send('aprobacioncomercial', acecf, await sender.token());
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.body.error.message, /Aprobación Comercial no es requerida para este tipo de e-CF/);
});
