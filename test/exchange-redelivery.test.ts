import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sampleEcf } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { call, type Loose } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { type ReceiverGateway, startReceiverGateway } from './helpers/receiver-gateway.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// Re-delivery to the buyer by hand. Two tenants of one running service, A and B; DGII's
// directory sends A's deliveries for B through a gateway in front of B's receiver. The gateway
// is down (503) until A's retry budget is spent and the buyer leg is error; then it is fixed, A
// asks POST …/receptor/reenviar, and B's receiver gets the e-CF and answers its signed ARECF.
// The webhook deliveries of the buyer leg and of B's approval are listed by the eNCF.

type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;

let t: TestService;
let hooks: Receiver;
const gateways: ReceiverGateway[] = [];

before(async () => {
  t = await startTestService({
    env: {
      ...FAST_PIPELINE, EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', EXCHANGE_MAX_ATTEMPTS: '2', EXCHANGE_RETRY_BASE_MS: '20', EXCHANGE_RETRY_MAX_MS: '50',
      RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000',
    },
  });
  hooks = await startReceiver();
});
after(async () => {
  for (const g of gateways) await g.close();
  await t.close();
  await hooks.close();
});

/** B's receiver behind a gateway DGII's directory lists in its place; the gateway starts down. */
async function behindGateway(b: Tenant): Promise<ReceiverGateway> {
  const gateway = await startReceiverGateway(`${t.url}/TesteCF/receptor/${b.rnc}`);
  gateways.push(gateway);
  t.service.simulator?.listInDirectory({ nombre: 'B', rnc: b.rnc, urlRecepcion: gateway.url, urlAceptacion: gateway.url, urlOpcional: gateway.url });
  return gateway;
}

async function emitTo(a: Tenant, rncComprador: string): Promise<string> {
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc }, Comprador: { RNCComprador: rncComprador } } }),
    headers: { 'x-api-key': a.apiKey },
  });
  assert.equal(res.status, 202, res.text);
  return res.body.data.internalTrackId as string;
}

const documentOf = async (a: Tenant, id: string): Promise<Loose> => (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: { 'x-api-key': a.apiKey } })).body.data;

async function legOf(a: Tenant, id: string, what: string): Promise<Loose> {
  return waitFor(async () => {
    const d = await documentOf(a, id);
    return d.estado === 'aceptado' && d.receptor.estado !== 'pendiente' ? d : undefined;
  }, 30_000, what);
}

const redeliver = (a: Tenant, id: string, headers: Record<string, string> = {}) =>
  call(t.url, 'POST', `/TesteCF/documentos-ecf/${id}/receptor/reenviar`, { headers: { 'x-api-key': a.apiKey, ...headers } });

test('a buyer leg left in error by a receiver that was down is delivered again by hand once the buyer is fixed', async () => {
  const a = await newTenantWithCertificate(t.url);
  const b = await newTenantWithCertificate(t.url);
  assert.equal((await call(t.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: hooks.url }, headers: { authorization: `Bearer ${a.accessToken}` } })).status, 200);
  const gateway = await behindGateway(b);
  const id = await emitTo(a, b.rnc);

  const failed = await legOf(a, id, 'the buyer leg while B is down');
  assert.equal(failed.receptor.estado, 'error', JSON.stringify(failed.receptor));
  assert.match(failed.receptor.detalle, /after 2 attempts/);
  assert.equal((await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}/arecf`, { headers: { 'x-api-key': a.apiKey } })).status, 404);

  // B is fixed; its gateway holds the delivery until the test has seen the leg pendiente.
  gateway.hold();
  const key = { 'idempotency-key': `redeliver-${id}` };
  const queued = await redeliver(a, id, key);
  assert.equal(queued.status, 202, queued.text);
  assert.deepEqual([queued.body.data.internalTrackId, queued.body.data.receptor.estado, queued.body.data.estado], [id, 'pendiente', 'aceptado']);
  const replay = await redeliver(a, id, key);
  assert.equal(replay.status, 202);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  const whilePending = await redeliver(a, id);
  assert.equal(whilePending.status, 409, whilePending.text);
  assert.equal(whilePending.body.error.code, 'CONFLICT');
  assert.match(whilePending.body.error.message, /this one is pendiente/);
  gateway.release();

  const delivered = await legOf(a, id, 'the buyer leg delivered again');
  assert.equal(delivered.receptor.estado, 'recibido', JSON.stringify(delivered.receptor));
  const arecf = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}/arecf`, { headers: { 'x-api-key': a.apiKey } });
  assert.equal(arecf.status, 200);
  assert.match(arecf.text, new RegExp(`<RNCComprador>${b.rnc}</RNCComprador>`));
  const received = await call(t.url, 'GET', `/TesteCF/documentos-recibidos?encf=${delivered.encf}`, { headers: { 'x-api-key': b.apiKey } });
  assert.equal(received.body.data.items.length, 1, 'B holds the e-CF once');
  const again = await redeliver(a, id);
  assert.equal(again.status, 409);
  assert.match(again.body.error.message, /this one is recibido/);

  // Each change of the leg was announced, in order: error, pendiente (the re-delivery), recibido.
  const legEvents = await waitFor(() => {
    const found = hooks.received.filter((r) => r.json.event === 'ecf.receptor_update' && r.json.internalTrackId === id);
    return found.length === 3 ? found : undefined;
  }, 30_000, 'three ecf.receptor_update deliveries');
  const estados = [...legEvents].sort((x, y) => (x.json.sequence as number) - (y.json.sequence as number)).map((e) => (e.json.receptor as Loose).estado);
  assert.deepEqual(estados, ['error', 'pendiente', 'recibido']);

  // B approves: A's webhook deliveries of the buyer leg and of the approval are named by the eNCF.
  const receivedId = received.body.data.items[0].id as string;
  const decided = await call(t.url, 'POST', `/TesteCF/documentos-recibidos/${receivedId}/aprobacion`, { json: { estado: 'aprobado' }, headers: { 'x-api-key': b.apiKey } });
  assert.equal(decided.status, 202, decided.text);
  type Item = { id: string; event: string; subject: unknown };
  const items = await waitFor(async () => {
    const list = (await call(t.url, 'GET', '/api/webhooks/deliveries?pageSize=100', { headers: { authorization: `Bearer ${a.accessToken}` } })).body.data.items as Item[];
    const about = list.filter((d) => d.event === 'ecf.receptor_update' || d.event === 'ecf.commercial_approval');
    return about.length === 4 ? about : undefined;
  }, 30_000, 'the buyer-leg and approval deliveries');
  // Newest first.
  assert.deepEqual(items.map((d) => d.subject), [
    { encf: delivered.encf, internalTrackId: id, aprobacionComercial: 'aprobado' },
    { encf: delivered.encf, internalTrackId: id, receptor: 'recibido' },
    { encf: delivered.encf, internalTrackId: id, receptor: 'pendiente' },
    { encf: delivered.encf, internalTrackId: id, receptor: 'error' },
  ]);
  const one = await call(t.url, 'GET', `/api/webhooks/deliveries/${items[0]?.id}`, { headers: { authorization: `Bearer ${a.accessToken}` } });
  assert.deepEqual(one.body.data.subject, { encf: delivered.encf, internalTrackId: id, aprobacionComercial: 'aprobado' });
});

test('re-delivery is 409 for a buyer leg that does not apply, and 404 for a document that is not the tenant\'s', async () => {
  const a = await newTenantWithCertificate(t.url);
  const other = await newTenantWithCertificate(t.url);
  const id = await emitTo(a, '101010101');
  const notListed = await legOf(a, id, 'the buyer leg to an RNC the directory does not list');
  assert.equal(notListed.receptor.estado, 'no_aplica');
  const res = await redeliver(a, id);
  assert.equal(res.status, 409, res.text);
  assert.equal(res.body.error.code, 'CONFLICT');
  assert.match(res.body.error.message, /this one is no_aplica/);
  assert.equal((await redeliver(other, id)).status, 404);
  assert.equal((await redeliver(a, randomUUID())).status, 404);
});
