import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleEcf } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant, type Loose } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';
import { parseXml, textAt, verifyXml } from '../src/xml/index.ts';

// POST /{env}/aprobaciones-comerciales: the tenant, as buyer, approves or rejects any e-CF named
// by its data (DGII's certification step 3, invoices that came by other channels). The ACECF
// goes to DGII (the in-process simulator) and to the emisor's receiver when DGII's directory
// lists it (the simulator's directory lists this service's own tenants).

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true', EXCHANGE_RETRY_BASE_MS: '20', EXCHANGE_RETRY_MAX_MS: '50', EXCHANGE_MAX_ATTEMPTS: '100', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
});
after(async () => {
  await t.close();
});

const OTHER_EMISOR = '131880681';
const body = (over: Record<string, unknown> = {}) => ({ rncEmisor: OTHER_EMISOR, encf: 'E310000000001', fechaEmision: '01-04-2020', montoTotal: 7080, estado: 'aprobado', ...over });

async function settled(apiKey: string, env: string, id: string): Promise<Loose> {
  return waitFor(async () => {
    const r = await call(t.url, 'GET', `/${env}/aprobaciones-comerciales/${id}`, { headers: { 'x-api-key': apiKey } });
    return r.body.data.dgii.estado !== 'pendiente' && r.body.data.emisor.estado !== 'pendiente' ? r.body.data : undefined;
  }, 20_000, 'both legs settled');
}

test('an approval about an e-CF of an emisor outside the directory is signed, sent to DGII, and its emisor leg is no_aplica', async () => {
  const b = await newTenantWithCertificate(t.url);
  const before = t.service.simulator?.counters().approvalsReceived ?? 0;
  const res = await call(t.url, 'POST', '/CerteCF/aprobaciones-comerciales', { json: body(), headers: { 'x-api-key': b.apiKey } });
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.data.rncComprador, b.rnc);
  assert.equal(res.body.data.montoTotal, '7080.00');
  assert.equal(res.body.data.fechaEmision, '2020-04-01');
  const done = await settled(b.apiKey, 'CerteCF', res.body.data.id);
  assert.equal(done.dgii.estado, 'enviado', JSON.stringify(done.dgii));
  assert.match(done.dgii.detalle, /Aprobada/);
  assert.equal(done.emisor.estado, 'no_aplica');
  assert.equal((t.service.simulator?.counters().approvalsReceived ?? 0) - before, 1);

  const [row] = await t.sql<{ xml: string }[]>`select xml from commercial_approval_requests where id = ${res.body.data.id}`;
  const xml = row?.xml ?? '';
  const verified = verifyXml(xml);
  assert.ok(verified.valid, 'the ACECF is signed');
  const root = parseXml(xml).root;
  assert.deepEqual(['RNCEmisor', 'eNCF', 'FechaEmision', 'MontoTotal', 'RNCComprador', 'Estado'].map((n) => textAt(root, ['DetalleAprobacionComercial', n])), [OTHER_EMISOR, 'E310000000001', '01-04-2020', '7080.00', b.rnc, '1']);

  const list = await call(t.url, 'GET', '/CerteCF/aprobaciones-comerciales', { headers: { 'x-api-key': b.apiKey } });
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.data.items.map((i: Loose) => i.id), [res.body.data.id]);
  assert.equal(list.body.data.items[0].dgii.estado, 'enviado');
  const elsewhere = await call(t.url, 'GET', '/TesteCF/aprobaciones-comerciales', { headers: { 'x-api-key': b.apiKey } });
  assert.deepEqual(elsewhere.body.data.items, [], 'approvals are per environment');
});

test('a rejection reaches the emisor\'s receiver when the emisor is in the directory, and the emisor sees it', async () => {
  const a = await newTenantWithCertificate(t.url);
  const b = await newTenantWithCertificate(t.url);
  const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc }, Comprador: { RNCComprador: b.rnc } } }),
    headers: { 'x-api-key': a.apiKey },
  });
  assert.equal(emitted.status, 202, emitted.text);
  const doc = emitted.body.data;
  // DGII takes an approval only of an e-CF it holds: the buyer decides once the e-CF reached it
  // (an approval that comes first is sent again later: the test after this one).
  await waitForEstado(t.url, 'TesteCF', doc.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado']);
  const res = await call(t.url, 'POST', '/TesteCF/aprobaciones-comerciales', {
    json: { rncEmisor: a.rnc, encf: doc.encf, fechaEmision: doc.fechaEmision, montoTotal: doc.montoTotal, estado: 'rechazado', motivo: 'Mercancía dañada' },
    headers: { authorization: `Bearer ${b.accessToken}` },
  });
  assert.equal(res.status, 202, res.text);
  const done = await settled(b.apiKey, 'TesteCF', res.body.data.id);
  assert.equal(done.emisor.estado, 'enviado', JSON.stringify(done.emisor));
  assert.equal(done.dgii.estado, 'enviado', JSON.stringify(done.dgii));
  assert.match(done.dgii.detalle, /Rechazada/);
  const [seen] = await t.sql<{ estado: number; detalleMotivoRechazo: string }[]>`select estado, detalle_motivo_rechazo from commercial_approvals where document_id = ${doc.internalTrackId}`;
  assert.deepEqual([seen?.estado, seen?.detalleMotivoRechazo], [2, 'Mercancía dañada']);
});

test('an approval that reaches DGII before the e-CF it approves is sent again until DGII holds it', async () => {
  const a = await newTenantWithCertificate(t.url);
  const b = await newTenantWithCertificate(t.url);
  const ecf = sampleEcf(31, { Encabezado: { Emisor: { RNCEmisor: a.rnc }, Comprador: { RNCComprador: b.rnc } } });
  const encf = 'E310000000001';
  const montoTotal = ((ecf.ECF.Encabezado as Loose).Totales as Loose).MontoTotal;
  // The buyer decides before the emisor has sent the e-CF: DGII refuses the ACECF (400,
  // "Factura no encontrada"), and the leg stays pendiente, its job due again.
  const res = await call(t.url, 'POST', '/TesteCF/aprobaciones-comerciales', {
    json: { rncEmisor: a.rnc, encf, fechaEmision: '15-03-2025', montoTotal, estado: 'aprobado' },
    headers: { 'x-api-key': b.apiKey },
  });
  assert.equal(res.status, 202, res.text);
  const refused = await waitFor(async () => {
    const [job] = await t.sql<{ attempts: number; lastError: string | null }[]>`
      select attempts, last_error from jobs where kind = 'approval.send' and payload ->> 'approvalId' = ${res.body.data.id} and payload ->> 'target' = 'dgii'`;
    return job?.lastError != null ? job : undefined;
  }, 10_000, 'a refused attempt of the DGII leg');
  assert.match(String(refused.lastError), /Factura no encontrada/);
  const pending = await call(t.url, 'GET', `/TesteCF/aprobaciones-comerciales/${res.body.data.id}`, { headers: { 'x-api-key': b.apiKey } });
  assert.equal(pending.body.data.dgii.estado, 'pendiente');

  const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecf, headers: { 'x-api-key': a.apiKey } });
  assert.equal(emitted.status, 202, emitted.text);
  assert.equal(emitted.body.data.encf, encf);
  await waitForEstado(t.url, 'TesteCF', emitted.body.data.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado']);
  const done = await settled(b.apiKey, 'TesteCF', res.body.data.id);
  assert.equal(done.dgii.estado, 'enviado', JSON.stringify(done.dgii));
  assert.match(done.dgii.detalle, /Aprobada/);
});

test('Idempotency-Key replays the first answer; a second decision on the same e-CF is 409', async () => {
  const b = await newTenantWithCertificate(t.url);
  const headers = { 'x-api-key': b.apiKey, 'idempotency-key': 'aprob-1' };
  const first = await call(t.url, 'POST', '/CerteCF/aprobaciones-comerciales', { json: body({ encf: 'E330000000001' }), headers });
  assert.equal(first.status, 202, first.text);
  const replay = await call(t.url, 'POST', '/CerteCF/aprobaciones-comerciales', { json: body({ encf: 'E330000000001' }), headers });
  assert.equal(replay.status, 202);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.body.data.id, first.body.data.id);
  const again = await call(t.url, 'POST', '/CerteCF/aprobaciones-comerciales', { json: body({ encf: 'E330000000001', estado: 'rechazado', motivo: 'x' }), headers: { 'x-api-key': b.apiKey } });
  assert.equal(again.status, 409);
  const [n] = await t.sql<{ n: number }[]>`select count(*)::int as n from commercial_approval_requests where tenant_id = ${b.tenantId}`;
  assert.equal(n?.n, 1);
});

test('bad approvals are refused with 422 naming each field; nothing is stored or sent', async () => {
  const b = await newTenantWithCertificate(t.url);
  const cases: [Record<string, unknown>, string][] = [
    [body({ rncEmisor: '12345' }), 'rncEmisor'],
    [body({ rncEmisor: b.rnc }), 'rncEmisor'],
    [body({ encf: 'B0100000001' }), 'encf'],
    [body({ encf: 'E990000000001' }), 'encf'],
    [body({ fechaEmision: '31-02-2020' }), 'fechaEmision'],
    [body({ montoTotal: '-5' }), 'montoTotal'],
    [body({ montoTotal: '1.234' }), 'montoTotal'],
    [body({ montoTotal: 1e300 }), 'montoTotal'],
    [body({ estado: 'quizas' }), 'estado'],
    [body({ estado: 'rechazado' }), 'motivo'],
    [body({ estado: 'rechazado', motivo: 'x'.repeat(251) }), 'motivo'],
    [body({ extra: 1 }), 'extra'],
  ];
  for (const [json, field] of cases) {
    const res = await call(t.url, 'POST', '/CerteCF/aprobaciones-comerciales', { json, headers: { 'x-api-key': b.apiKey } });
    assert.equal(res.status, 422, `${JSON.stringify(json)}: ${res.text}`);
    assert.ok(res.body.error.details.some((d: Loose) => d.path === field), `${field} in ${res.text}`);
  }
  const [n] = await t.sql<{ n: number }[]>`select count(*)::int as n from commercial_approval_requests where tenant_id = ${b.tenantId}`;
  assert.equal(n?.n, 0);
});

test('without a certificate the approval is 409 and nothing is stored', async () => {
  const b = await newTenant(t.url);
  const res = await call(t.url, 'POST', '/CerteCF/aprobaciones-comerciales', { json: body(), headers: { 'x-api-key': b.apiKey } });
  assert.equal(res.status, 409);
  assert.match(res.body.error.message, /certificate/);
});
