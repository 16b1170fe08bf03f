import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDays, dominicanToday, toDgiiDate } from '../src/ecf/encf.ts';
import { call, client, newTenant } from './helpers/http.ts';
import { makeTestCertificate, newTenantWithCertificate, uploadCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { sampleEcf } from './fixtures/ecf.ts';
import { XSD_DIR } from './helpers/dgii-xml.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// Authorised eNCF ranges, numbering from them, their events, resubmission and annulment, end
// to end through the HTTP API, the job queue and the in-process DGII simulator.

let t: TestService;
let dir = '';
const receivers: Receiver[] = [];
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, SEQUENCE_LOW_WATERMARK: '3', SEQUENCE_EXPIRY_WARNING_DAYS: '30', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' } });
  dir = await mkdtemp(join(tmpdir(), 'ecf-seq-'));
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

type Tenant = Awaited<ReturnType<typeof newTenant>>;
const E31 = (n: number) => `E31${String(n).padStart(10, '0')}`;
const future = toDgiiDate(addDays(dominicanToday(), 400));

function api(a: Tenant) {
  return client(t.url, { 'x-api-key': a.apiKey });
}

async function register(a: Tenant, body: Record<string, unknown>, env = 'TesteCF') {
  return api(a).post(`/${env}/secuencias`, { json: body });
}

/** A type 31 e-CF without eNCF nor FechaVencimientoSecuencia (the sample has one), unless given. */
async function emit(a: Tenant, overrides: { Encabezado?: { IdDoc?: Record<string, string> } } = {}, env = 'TesteCF') {
  const idDoc = { eNCF: undefined, FechaVencimientoSecuencia: undefined, ...overrides.Encabezado?.IdDoc };
  return api(a).post(`/${env}/documentos-ecf`, { json: sampleEcf(31, { Encabezado: { IdDoc: idDoc, Emisor: { RNCEmisor: a.rnc } } }) });
}

async function eventsOf(a: Tenant, kind: string): Promise<Record<string, unknown>[]> {
  const rows = await t.sql<{ body: string }[]>`select body from events where tenant_id = ${a.tenantId} and kind = ${kind} order by created_at`;
  return rows.map((r) => JSON.parse(r.body) as Record<string, unknown>);
}

describe('ranges', () => {
  test('registering checks the body and refuses overlaps', async () => {
    const a = await newTenant(t.url);
    for (const [body, path] of [
      [{ tipo: 31, desde: 'E320000000001', hasta: 'E310000000010', fechaVencimiento: future }, 'desde'],
      [{ tipo: 31, desde: E31(10), hasta: E31(1), fechaVencimiento: future }, 'hasta'],
      [{ tipo: 31, desde: E31(1), hasta: E31(10) }, 'fechaVencimiento'],
      [{ tipo: 32, desde: 'E320000000001', hasta: 'E320000000010', fechaVencimiento: future }, 'fechaVencimiento'],
      [{ tipo: 99, desde: E31(1), hasta: E31(10) }, 'tipo'],
      [{ tipo: 31, desde: E31(1), hasta: E31(10), fechaVencimiento: '31-02-2030' }, 'fechaVencimiento'],
      // Already expired (issue 28, item 14): DGII's authorisation of these numbers has ended.
      [{ tipo: 31, desde: E31(1), hasta: E31(10), fechaVencimiento: toDgiiDate(addDays(dominicanToday(), -1)) }, 'fechaVencimiento'],
    ] as const) {
      const res = await register(a, body);
      assert.equal(res.status, 422, res.text);
      assert.ok(res.body.error.details.some((d: { path: string }) => d.path === path), `${path}: ${res.text}`);
    }
    const ok = await register(a, { tipo: 31, desde: E31(1), hasta: E31(10), fechaVencimiento: future });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual({ ...ok.body.data, id: undefined, createdAt: undefined }, {
      id: undefined, createdAt: undefined, tipo: 31, environment: 'TesteCF', desde: E31(1), hasta: E31(10), fechaVencimiento: future, siguiente: E31(1), disponibles: 10, estado: 'activa',
    });
    const overlap = await register(a, { tipo: 31, desde: E31(10), hasta: E31(20), fechaVencimiento: future });
    assert.equal(overlap.status, 409, overlap.text);
    assert.match(overlap.body.error.message, /overlaps the registered range E310000000001–E310000000010/);
    assert.equal((await register(a, { tipo: 32, desde: 'E320000000005', hasta: 'E320000000009' })).status, 201);
    const list = await api(a).get('/TesteCF/secuencias');
    assert.deepEqual(list.body.data.map((r: { tipo: number }) => r.tipo), [31, 32]);
    assert.equal((await api(a).get(`/TesteCF/secuencias/${ok.body.data.id}`)).body.data.desde, E31(1));
    assert.equal((await api(a).get('/CerteCF/secuencias')).body.data.length, 0);
  });

  test('50 concurrent emits over two ranges: gap-free, no duplicates, the second starts when the first is spent', async () => {
    const a = await newTenant(t.url);
    // The second range expires later, so the first (expiring first) is used first.
    assert.equal((await register(a, { tipo: 31, desde: E31(101), hasta: E31(130), fechaVencimiento: toDgiiDate(addDays(dominicanToday(), 500)) })).status, 201);
    assert.equal((await register(a, { tipo: 31, desde: E31(1), hasta: E31(20), fechaVencimiento: future })).status, 201);
    const results = await Promise.all(Array.from({ length: 50 }, () => emit(a)));
    for (const r of results) assert.equal(r.status, 202, r.text);
    const got = results.map((r) => r.body.data.encf as string).sort();
    const expected = [...Array.from({ length: 20 }, (_, i) => E31(1 + i)), ...Array.from({ length: 30 }, (_, i) => E31(101 + i))];
    assert.deepEqual(got, expected);
    const ranges = (await api(a).get('/TesteCF/secuencias')).body.data;
    assert.deepEqual(ranges.map((r: { estado: string; disponibles: number; siguiente: string | null }) => [r.estado, r.disponibles, r.siguiente]), [['agotada', 0, null], ['agotada', 0, null]]);
    // Exhausted: 409 SEQUENCE_EXHAUSTED and nothing stored.
    const before = await t.sql`select count(*)::int as n from documents where tenant_id = ${a.tenantId}`;
    const res = await emit(a);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'SEQUENCE_EXHAUSTED');
    const afterCount = await t.sql`select count(*)::int as n from documents where tenant_id = ${a.tenantId}`;
    assert.equal(afterCount[0]?.n, before[0]?.n);
    // sequence.low fired once, when the numbers left fell to 3 or below (emits come in batches).
    const low = await eventsOf(a, 'sequence.low');
    assert.equal(low.length, 1, JSON.stringify(low));
    assert.ok((low[0]?.disponibles as number) <= 3 && low[0]?.umbral === 3, JSON.stringify(low));
  });

  test('a number from a range carries its FechaVencimientoSecuencia; a different one is 422', async () => {
    const a = await newTenant(t.url);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(5), fechaVencimiento: future });
    const res = await emit(a);
    assert.equal(res.status, 202, res.text);
    const doc = await api(a).get(`/TesteCF/documentos-ecf/${res.body.data.internalTrackId}`);
    assert.equal(doc.body.data.document.ECF.Encabezado.IdDoc.FechaVencimientoSecuencia, future);
    const wrong = await emit(a, { Encabezado: { IdDoc: { FechaVencimientoSecuencia: '31-12-2099' } } });
    assert.equal(wrong.status, 422, wrong.text);
    assert.match(wrong.text, /FechaVencimientoSecuencia/);
  });

  test('an expired range gives nothing, and an explicit eNCF must lie in an unexpired range', async () => {
    const a = await newTenant(t.url);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(5), fechaVencimiento: future });
    // Expire it behind the API's back (a registration in the past would be pointless).
    await t.sql`update encf_ranges set fecha_vencimiento = ${addDays(dominicanToday(), -1)}::date where tenant_id = ${a.tenantId}`;
    const res = await emit(a);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'SEQUENCE_EXHAUSTED');
    assert.equal((await api(a).get('/TesteCF/secuencias')).body.data[0].estado, 'vencida');
    const explicit = await emit(a, { Encabezado: { IdDoc: { eNCF: E31(2) } } });
    assert.equal(explicit.status, 422, explicit.text);
    assert.match(explicit.text, /expired/);
    const outside = await emit(a, { Encabezado: { IdDoc: { eNCF: E31(99) } } });
    assert.equal(outside.status, 422, outside.text);
    assert.match(outside.text, /not in a registered eNCF range/);
  });

  test('numbering from a range passes the numbers explicit eNCFs took, and counts only what it gives', async () => {
    const a = await newTenant(t.url);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(6), fechaVencimiento: future });
    for (const n of [2, 3]) assert.equal((await emit(a, { Encabezado: { IdDoc: { eNCF: E31(n) } } })).status, 202);
    const given = [];
    for (let i = 0; i < 3; i++) {
      const res = await emit(a);
      assert.equal(res.status, 202, res.text);
      given.push(res.body.data.encf);
    }
    assert.deepEqual(given, [E31(1), E31(4), E31(5)]);
    const range = (await api(a).get('/TesteCF/secuencias')).body.data[0];
    assert.equal(range.disponibles, 1, JSON.stringify(range));
  });

  test('explicit eNCFs sent together are spent together: each counted once, a refused one fails alone', async () => {
    const a = await newTenant(t.url);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(20), fechaVencimiento: future });
    const together = await Promise.all([2, 3, 4, 5, 6, 7, 8, 9].map((n) => emit(a, { Encabezado: { IdDoc: { eNCF: E31(n) } } })));
    assert.deepEqual(together.map((r) => r.status), Array(8).fill(202), together.map((r) => r.text).join('\n'));
    assert.equal((await api(a).get('/TesteCF/secuencias')).body.data[0].disponibles, 12);
    const mixed = await Promise.all([11, 99, 12, 5].map((n) => emit(a, { Encabezado: { IdDoc: { eNCF: E31(n) } } })));
    assert.deepEqual(mixed.map((r) => r.status), [202, 422, 202, 409], mixed.map((r) => r.text).join('\n'));
    assert.equal(mixed[3]?.body.error.code, 'ENCF_ALREADY_USED');
    assert.equal((await api(a).get('/TesteCF/secuencias')).body.data[0].disponibles, 10);
    const numbered = [];
    for (let i = 0; i < 2; i++) numbered.push((await emit(a)).body.data.encf);
    assert.deepEqual(numbered, [E31(1), E31(10)]);
  });

  test('a type with no range: implicit numbering in TesteCF, SEQUENCE_EXHAUSTED in eCF', async () => {
    const a = await newTenant(t.url);
    const missing = await emit(a);
    assert.equal(missing.status, 422, 'without a range FechaVencimientoSecuencia is still required');
    const test1 = await emit(a, { Encabezado: { IdDoc: { FechaVencimientoSecuencia: future } } });
    assert.equal(test1.status, 202, test1.text);
    assert.equal(test1.body.data.encf, E31(1));
    const prod = await emit(a, {}, 'eCF');
    assert.equal(prod.status, 409, prod.text);
    assert.equal(prod.body.error.code, 'SEQUENCE_EXHAUSTED');
    assert.match(prod.body.error.message, /POST \/eCF\/secuencias/);
  });

  test('sequence.expiring is sent once for a range near its expiry, and delivered as a webhook', async () => {
    const a = await newTenant(t.url);
    const bearer = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    const r = await startReceiver();
    receivers.push(r);
    assert.equal((await bearer.put('/api/webhooks/settings', { json: { webhookUrl: r.url } })).status, 200);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(50), fechaVencimiento: toDgiiDate(addDays(dominicanToday(), 10)) });
    await register(a, { tipo: 33, desde: 'E330000000001', hasta: 'E330000000050', fechaVencimiento: future });
    const events = await eventsOf(a, 'sequence.expiring');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.diasRestantes, 10);
    assert.equal(events[0]?.desde, E31(1));
    await waitFor(() => r.received.some((x) => x.headers['x-ecf-event'] === 'sequence.expiring'), 10_000, 'the sequence.expiring webhook');
    // Registering another range does not announce it again.
    await register(a, { tipo: 34, desde: 'E340000000001', hasta: 'E340000000002' });
    assert.equal((await eventsOf(a, 'sequence.expiring')).length, 1);
    // The low watermark (3) fires for type 34 at once: two numbers are all it has.
    assert.equal((await eventsOf(a, 'sequence.low')).filter((e) => e.tipo === 34).length, 1);
  });
});

describe('resubmission and annulment', () => {
  async function failedDocument(a: Tenant) {
    const res = await emit(a);
    assert.equal(res.status, 202, res.text);
    const id = res.body.data.internalTrackId as string;
    await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['error']);
    return { id, encf: res.body.data.encf as string };
  }

  test('a document emitted before the certificate is resubmitted with its eNCF and reaches aceptado; Idempotency-Key replays', async () => {
    const a = await newTenant(t.url);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(10), fechaVencimiento: future });
    const { id, encf } = await failedDocument(a);
    const notYet = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${id}/reenviar`, { headers: { 'x-api-key': a.apiKey } });
    assert.equal(notYet.status, 202, 'resubmitting without a certificate is allowed (it ends in error again)');
    await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['error']);
    assert.equal((await uploadCertificate(t.url, a.accessToken, makeTestCertificate(a.rnc))).status, 201);
    const headers = { 'x-api-key': a.apiKey, 'idempotency-key': 'reenviar-1' };
    const res = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${id}/reenviar`, { headers });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.estado, 'recibido');
    const again = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${id}/reenviar`, { headers });
    assert.equal(again.status, 202);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const doc = await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['aceptado']);
    assert.equal(doc.encf, encf);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'error', 'recibido', 'error', 'recibido', 'en_proceso', 'aceptado']);
    assert.match(doc.history[2].detail, /Resubmitted/);
    const xml = await api(a).get(`/TesteCF/documentos-ecf/${id}/xml`);
    assert.match(xml.text, new RegExp(`<eNCF>${encf}</eNCF>`));
    const notError = await call(t.url, 'POST', `/TesteCF/documentos-ecf/${id}/reenviar`, { headers: { 'x-api-key': a.apiKey } });
    assert.equal(notError.status, 409);
    const updates = (await eventsOf(a, 'ecf.status_update')).map((e) => e.estado);
    assert.deepEqual(updates, ['recibido', 'error', 'recibido', 'error', 'recibido', 'en_proceso', 'aceptado']);
  });

  test('without a certificate an annulment ends in error and keeps its numbers held', async () => {
    const a = await newTenant(t.url);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(20), fechaVencimiento: future });
    // No certificate: the documents end in error.
    const first = await failedDocument(a);
    assert.equal(first.encf, E31(1));
    const body = { tipo: 31, desde: E31(1), hasta: E31(5) };
    // No certificate: the annulment cannot be signed and ends in error, its numbers held.
    const noCert = await api(a).post('/TesteCF/anulaciones', { json: body });
    assert.equal(noCert.status, 202, noCert.text);
    const failed = await waitFor(async () => {
      const got = await api(a).get(`/TesteCF/anulaciones/${noCert.body.data.id}`);
      return got.body.data.estado === 'error' ? got.body.data : undefined;
    }, 10_000, 'the annulment in error');
    assert.match(failed.dgiiMessage, /No valid certificate/);
    assert.equal((await emit(a, { Encabezado: { IdDoc: { eNCF: E31(3) } } })).body.error.code, 'ENCF_ANNULLED');
    assert.equal((await api(a).post('/TesteCF/anulaciones', { json: body })).status, 409, 'still held');
    assert.equal((await api(a).get('/TesteCF/anulaciones')).body.data.items.length, 1);
  });

  test('CerteCF, where DGII publishes no Anulación Rangos, refuses an annulment with 409 before any number is held', async () => {
    const a = await newTenant(t.url);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(20), fechaVencimiento: future }, 'CerteCF');
    const refused = await api(a).post('/CerteCF/anulaciones', { json: { tipo: 31, desde: E31(1), hasta: E31(5) } });
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.body.error.message, /no Anulación Rangos service in CerteCF/);
    assert.equal((await api(a).get('/CerteCF/anulaciones')).body.data.items.length, 0);
    const next = await emit(a, {}, 'CerteCF');
    assert.equal(next.status, 202, next.text);
    assert.equal(next.body.data.encf, E31(1), 'no number was held');
    // The same request in TesteCF, where the service is published, is taken.
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(20), fechaVencimiento: future });
    assert.equal((await api(a).post('/TesteCF/anulaciones', { json: { tipo: 31, desde: E31(1), hasta: E31(5) } })).status, 202);
  });

  test('the simulator rejects annulling a used number, accepts unused ones; the ANECF validates with xmllint and xmlsec1', async () => {
    const a = await newTenantWithCertificate(t.url);
    await register(a, { tipo: 31, desde: E31(1), hasta: E31(20), fechaVencimiento: future });
    const res = await emit(a);
    const id = res.body.data.internalTrackId as string;
    await waitForEstado(t.url, 'TesteCF', id, { 'x-api-key': a.apiKey }, ['aceptado']);
    const blocked = await api(a).post('/TesteCF/anulaciones', { json: { tipo: 31, desde: E31(1), hasta: E31(3) } });
    assert.equal(blocked.status, 409);
    assert.match(blocked.body.error.message, /E310000000001, which is aceptado/);
    const e2 = await emit(a);
    await waitForEstado(t.url, 'TesteCF', e2.body.data.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado']);
    // Make the second one error, as if its submission had failed for good.
    await t.sql`update documents set estado = 'error' where id = ${e2.body.data.internalTrackId}`;
    const headers = { 'x-api-key': a.apiKey, 'idempotency-key': 'anular-1' };
    const body = { tipo: 31, desde: E31(2), hasta: E31(6) };
    const req = await call(t.url, 'POST', '/TesteCF/anulaciones', { json: body, headers });
    assert.equal(req.status, 202, req.text);
    assert.equal((await call(t.url, 'POST', '/TesteCF/anulaciones', { json: body, headers })).headers.get('idempotent-replayed'), 'true');
    const done = await waitFor(async () => {
      const got = await api(a).get(`/TesteCF/anulaciones/${req.body.data.id}`);
      return got.body.data.estado !== 'recibido' ? got.body.data : undefined;
    }, 10_000, 'the annulment decided');
    // The simulator rejects it: E310000000002 was accepted by DGII, so it cannot be annulled.
    assert.equal(done.estado, 'rechazado', JSON.stringify(done));
    assert.match(done.dgiiMessage, /E310000000002 ya fue utilizada/);

    // An unused span is accepted; numbering skips it.
    const ok = await api(a).post('/TesteCF/anulaciones', { json: { tipo: 31, desde: E31(3), hasta: E31(6) } });
    assert.equal(ok.status, 202, ok.text);
    const accepted = await waitFor(async () => {
      const got = await api(a).get(`/TesteCF/anulaciones/${ok.body.data.id}`);
      return got.body.data.estado !== 'recibido' ? got.body.data : undefined;
    }, 10_000, 'the annulment decided');
    assert.equal(accepted.estado, 'aceptado', JSON.stringify(accepted));
    const next = await emit(a);
    assert.equal(next.body.data.encf, E31(7));
    assert.equal((await emit(a, { Encabezado: { IdDoc: { eNCF: E31(4) } } })).status, 409);

    const xml = await api(a).get(`/TesteCF/anulaciones/${ok.body.data.id}/xml`);
    assert.equal(xml.status, 200);
    const file = join(dir, 'anecf.xml');
    await writeFile(file, xml.text);
    const lint = spawnSync('xmllint', ['--noout', '--schema', join(XSD_DIR, 'anecf.xsd'), file], { encoding: 'utf8' });
    assert.equal(lint.status, 0, lint.stderr);
    const sig = spawnSync('xmlsec1', ['--verify', '--trusted-pem', a.certificate.certificatePath, file], { encoding: 'utf8' });
    assert.equal(sig.status, 0, sig.stderr);
    assert.match(xml.text, /<CantidadeNCFAnulados>4<\/CantidadeNCFAnulados>/);
  });

  test('an accepted annulment turns the documents in error inside it into anulado', async () => {
    const b = await newTenantWithCertificate(t.url);
    await register(b, { tipo: 31, desde: E31(1), hasta: E31(10), fechaVencimiento: future });
    // DGII refuses the upload itself (4xx): the document is error and DGII holds nothing of it.
    t.service.simulator?.injectFault({ service: 'recepcion', status: 400 });
    const failing = await emit(b);
    const fid = failing.body.data.internalTrackId as string;
    await waitForEstado(t.url, 'TesteCF', fid, { 'x-api-key': b.apiKey }, ['error']);
    const an = await api(b).post('/TesteCF/anulaciones', { json: { tipo: 31, desde: E31(1), hasta: E31(2) } });
    assert.equal(an.status, 202, an.text);
    const doc = await waitForEstado(t.url, 'TesteCF', fid, { 'x-api-key': b.apiKey }, ['anulado']);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'error', 'anulado']);
    const detail = (await api(b).get(`/TesteCF/anulaciones/${an.body.data.id}`)).body.data;
    assert.equal(detail.estado, 'aceptado');
    assert.deepEqual(detail.documentos.map((d: { encf: string; estado: string }) => [d.encf, d.estado]), [[E31(1), 'anulado']]);
    const ranges = (await api(b).get('/TesteCF/secuencias')).body.data;
    assert.equal(ranges[0].disponibles, 8);
    assert.equal(ranges[0].siguiente, E31(3));
    assert.equal((await call(t.url, 'POST', `/TesteCF/documentos-ecf/${fid}/reenviar`, { headers: { 'x-api-key': b.apiKey } })).status, 409, 'anulado is final');
    assert.deepEqual((await eventsOf(b, 'ecf.status_update')).map((e) => e.estado), ['recibido', 'error', 'anulado']);
  });
});
