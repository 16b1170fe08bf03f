import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, newTenant } from './helpers/http.ts';
import { ecfFor, FAST_PIPELINE } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, WORKERS_ENABLED: 'false' } });
});
after(async () => {
  await t.close();
});

const lote = (apiKey: string, json: unknown, headers: Record<string, string> = {}) =>
  call(t.url, 'POST', '/TesteCF/documentos-ecf/lote', { json, headers: { 'x-api-key': apiKey, ...headers } });

describe('POST /{env}/documentos-ecf/lote', () => {
  test('answers one result per document in order, the document or its errors, and stores a sequence\'s documents in as few transactions as numbering allows', async () => {
    const a = await newTenant(t.url);
    const documentos = Array.from({ length: 70 }, (_, i) => (i === 5 ? { ECF: {} } : { ...ecfFor(a.rnc), referencia: `FAC-${i}` }));
    const res = await lote(a.apiKey, { documentos });
    assert.equal(res.status, 200, res.text);
    const { resultados, aceptados, rechazados } = res.body.data;
    assert.equal(resultados.length, 70);
    assert.deepEqual([aceptados, rechazados], [69, 1]);
    resultados.forEach((r: { indice: number }, i: number) => assert.equal(r.indice, i));
    assert.equal(resultados[5].status, 422);
    assert.equal(resultados[5].success, false);
    assert.equal(resultados[5].error.code, 'VALIDATION_ERROR');
    assert.ok(resultados[5].error.details.length > 0);
    const stored = resultados.filter((r: { success: boolean }) => r.success);
    for (const r of stored) {
      assert.equal(r.status, 202);
      assert.equal(r.data.estado, 'recibido');
      assert.equal(r.data.referencia, `FAC-${r.indice}`);
    }
    // Gap-free numbers, each document once.
    const numbers = stored.map((r: { data: { encf: string } }) => Number(r.data.encf.slice(3))).sort((x: number, y: number) => x - y);
    assert.deepEqual(numbers, Array.from({ length: 69 }, (_, i) => i + 1));
    const one = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${stored[0].data.internalTrackId}`, { headers: { 'x-api-key': a.apiKey } });
    assert.equal(one.status, 200);
    // 69 documents of one sequence: two transactions of up to 64 (each row's xmin names its transaction).
    const ids = stored.map((r: { data: { internalTrackId: string } }) => r.data.internalTrackId);
    const [{ transactions }] = await t.sql<{ transactions: number }[]>`select count(distinct xmin::text)::int as transactions from documents where id = any(${ids}::uuid[])` as unknown as [{ transactions: number }];
    assert.equal(transactions, 2);
  });

  test('refuses a body that is not 1 to 100 documents as a whole, with 422', async () => {
    const a = await newTenant(t.url);
    for (const body of [[ecfFor(a.rnc)], { documentos: [] }, { documentos: Array.from({ length: 101 }, () => ({ ECF: {} })) }, { documentos: [ecfFor(a.rnc)], otro: 1 }, {}]) {
      const res = await lote(a.apiKey, body);
      assert.equal(res.status, 422, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
    const list = await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: { 'x-api-key': a.apiKey } });
    assert.equal(list.body.data.items.length, 0, 'nothing was stored');
  });

  test('one Idempotency-Key covers the batch: a retry replays it, another body conflicts, and a retry whose batch answer was lost replays each stored document', async () => {
    const a = await newTenant(t.url);
    const body = { documentos: [ecfFor(a.rnc), { ECF: {} }, ecfFor(a.rnc, 32)] };
    const first = await lote(a.apiKey, body, { 'idempotency-key': 'lote-1' });
    assert.equal(first.status, 200, first.text);
    const again = await lote(a.apiKey, body, { 'idempotency-key': 'lote-1' });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    const other = await lote(a.apiKey, { documentos: [ecfFor(a.rnc)] }, { 'idempotency-key': 'lote-1' });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'IDEMPOTENCY_KEY_CONFLICT');

    // As if the process had died after storing the documents but before the batch's answer: the
    // retry's documents are the same ones, none emitted twice.
    await t.sql`delete from idempotency_keys where tenant_id = ${a.tenantId} and key = 'lote-1'`;
    const retried = await lote(a.apiKey, body, { 'idempotency-key': 'lote-1' });
    assert.equal(retried.status, 200, retried.text);
    assert.deepEqual(retried.body.data.resultados, first.body.data.resultados);
    const list = await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: { 'x-api-key': a.apiKey } });
    assert.equal(list.body.data.items.length, 2);
  });

  test('a batch counts as its documents against the emit limit, at most the whole bucket', async () => {
    const limited = await startTestService({ database: t.database, env: { ...FAST_PIPELINE, RATE_LIMIT_EMIT_PER_MINUTE: '10', WORKERS_ENABLED: 'false' } });
    try {
      const a = await newTenant(limited.url);
      const send = (n: number) => call(limited.url, 'POST', '/TesteCF/documentos-ecf/lote', { json: { documentos: Array.from({ length: n }, () => ({ ECF: {} })) }, headers: { 'x-api-key': a.apiKey } });
      const eight = await send(8);
      assert.equal(eight.status, 200, eight.text);
      // Two tokens left (give or take one refilled every 6 s): three documents are refused.
      const three = await send(3);
      assert.equal(three.status, 429, three.text);
      assert.equal(three.body.error.code, 'RATE_LIMITED');
      const b = await newTenant(limited.url);
      // Twenty documents against a limit of ten take the whole bucket rather than never passing.
      const twenty = await call(limited.url, 'POST', '/TesteCF/documentos-ecf/lote', { json: { documentos: Array.from({ length: 20 }, () => ({ ECF: {} })) }, headers: { 'x-api-key': b.apiKey } });
      assert.equal(twenty.status, 200, twenty.text);
      const single = await call(limited.url, 'POST', '/TesteCF/documentos-ecf', { json: { ECF: {} }, headers: { 'x-api-key': b.apiKey } });
      assert.equal(single.status, 429);
    } finally {
      await limited.close();
    }
  });
});
