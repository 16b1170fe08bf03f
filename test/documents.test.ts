import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, client, newTenant, type ApiResponse, type Loose } from './helpers/http.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';

let t: TestService;
before(async () => {
  t = await startTestService({ env: FAST_PIPELINE });
});
after(() => t.close());

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('emit', () => {
  test('emit answers 202 recibido with a UUID v4 and the next eNCF of the sequence', async () => {
    // CerteCF: a type with no registered range is numbered implicitly from 1 (in eCF it needs a range).
    const a = await newTenant(t.url);
    const api = client(t.url, { 'x-api-key': a.apiKey });
    const res = await api.post('/CerteCF/documentos-ecf', { json: ecfFor(a.rnc, 31) });
    assert.equal(res.status, 202, res.text);
    assert.match(res.body.data.internalTrackId, UUID_V4);
    assert.equal(res.body.data.encf, 'E310000000001');
    assert.equal(res.body.data.estado, 'recibido');
    assert.equal(res.headers.get('location'), `/CerteCF/documentos-ecf/${res.body.data.internalTrackId}`);
    const second = await api.post('/certecf/documentos-ecf', { json: ecfFor(a.rnc, 31) });
    assert.equal(second.body.data.encf, 'E310000000002');
    const otherType = await api.post('/CerteCF/documentos-ecf', { json: ecfFor(a.rnc, 32) });
    assert.equal(otherType.body.data.encf, 'E320000000001', 'one sequence per type');
    const otherEnv = await api.post('/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, 31) });
    assert.equal(otherEnv.body.data.encf, 'E310000000001', 'one sequence per environment');
  });

  test('the emit answer, its Idempotency-Key replay and the stored document agree field by field', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { 'x-api-key': a.apiKey });
    const body = ecfFor(a.rnc, 31);
    const totales = (body.ECF.Encabezado as Loose).Totales as Loose;
    const amount = String(totales.MontoTotal);
    assert.match(amount, /\.\d0$/, 'the sample total ends in 0, so it can be written with one decimal');
    // Written with a leading zero and one decimal: the answer shows it as numeric(20, 2) stores it.
    totales.MontoTotal = `0${amount.slice(0, -1)}`;
    // Keys jsonb reorders (by UTF-8 length, then bytes) and the engine lists integer-like ones first.
    const metadata = JSON.parse('{"zeta":"1","canal":"erp","b":"2","ñu":"3","nu":"4","10":"5","9":"6","__proto__":"7"}') as Record<string, string>;
    const withRef = { ...body, referencia: 'pedido-7', metadata };
    const headers = { 'idempotency-key': 'same-answer' };
    const first = await api.post('/TesteCF/documentos-ecf', { json: withRef, headers });
    assert.equal(first.status, 202, first.text);
    assert.equal(first.body.data.referencia, 'pedido-7');
    const replay = await api.post('/TesteCF/documentos-ecf', { json: withRef, headers });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, first.body);
    assert.equal(replay.headers.get('location'), first.headers.get('location'));
    const stored = (await api.get(`/TesteCF/documentos-ecf/${first.body.data.internalTrackId}`)).body.data;
    assert.equal(first.body.data.montoTotal, amount, 'numeric(20, 2) as stored');
    assert.equal(first.body.data.estado, 'recibido');
    assert.equal(replay.text, first.text, 'the replay is the answer byte for byte');
    // Its state may have moved on since (no certificate: to error); everything else is as answered.
    for (const key of Object.keys(first.body.data).filter((k) => k !== 'estado')) assert.deepEqual(first.body.data[key], stored[key], key);
    // In the same order of keys too, as the GET reads the jsonb column back.
    assert.equal(JSON.stringify(first.body.data.metadata), JSON.stringify(stored.metadata));
    assert.deepEqual(Object.keys(first.body.data.metadata), ['9', '10', 'b', 'nu', 'ñu', 'zeta', 'canal', '__proto__']);
  });

  test('emits sent together are stored together, each answer, replay and document matching its own request', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { 'x-api-key': a.apiKey });
    const n = 24;
    const send = (i: number) => api.post('/TesteCF/documentos-ecf', {
      json: { ...ecfFor(a.rnc, 31), referencia: `orden-${i}`, metadata: { linea: String(i) } },
      headers: { 'idempotency-key': `together-${i}` },
    });
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => send(i)));
    assert.deepEqual(answers.map((r) => r.status), Array(n).fill(202), answers.map((r) => r.text).join('\n'));
    answers.forEach((r, i) => {
      assert.equal(r.body.data.referencia, `orden-${i}`);
      assert.deepEqual(r.body.data.metadata, { linea: String(i) });
      assert.equal(r.headers.get('location'), `/TesteCF/documentos-ecf/${r.body.data.internalTrackId}`);
    });
    assert.deepEqual(answers.map((r) => r.body.data.encf).sort(), Array.from({ length: n }, (_, i) => `E31${String(i + 1).padStart(10, '0')}`));
    const replays = await Promise.all(Array.from({ length: n }, (_, i) => send(i)));
    replays.forEach((r, i) => {
      assert.equal(r.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(r.body, answers[i]?.body);
    });
    // Each with its own creation event (the pipeline may have moved it on since: later events are its own too).
    const rows = await t.sql<{ id: string; encf: string; referencia: string; events: number }[]>`
      select d.id, d.encf, d.referencia,
        (select count(*)::int from events e
          where e.body::jsonb ->> 'internalTrackId' = d.id::text and e.body::jsonb ->> 'estado' = 'recibido' and e.body::jsonb ->> 'encf' = d.encf) as events
      from documents d where d.tenant_id = ${a.tenantId} order by d.seq`;
    assert.equal(rows.length, n);
    assert.deepEqual(rows.map((r) => r.encf), [...rows.map((r) => r.encf)].sort(), 'stored in the order of their numbers');
    for (const r of answers) {
      const row = rows.find((x) => x.id === r.body.data.internalTrackId);
      assert.equal(row?.encf, r.body.data.encf);
      assert.equal(row?.referencia, r.body.data.referencia);
      assert.equal(row?.events, 1);
    }
  });

  test('the document, its first history entry, its event and its submission job are stored together', async () => {
    const a = await newTenant(t.url);
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    const id = res.body.data.internalTrackId;
    const [row] = await t.sql`
      select (select count(*)::int from document_history where document_id = ${id}) as history,
             (select count(*)::int from events where body like ${'%' + id + '%'}) as events`;
    assert.ok((row?.history as number) >= 1);
    assert.ok((row?.events as number) >= 1);
    const [first] = await t.sql`select estado from document_history where document_id = ${id} order by id limit 1`;
    assert.equal(first?.estado, 'recibido');
  });

  test('a document goes recibido → en_proceso → aceptado with the authority\'s trackId and code 0', async () => {
    const a = await newTenantWithCertificate(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const res = await call(t.url, 'POST', '/CerteCF/documentos-ecf', { json: ecfFor(a.rnc, 31), headers });
    const doc = await waitForEstado(t.url, 'CerteCF', res.body.data.internalTrackId, headers, ['aceptado']);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'en_proceso', 'aceptado']);
    assert.equal(doc.dgiiCode, '0');
    assert.equal(doc.dgiiMessage, 'Aceptado');
    assert.match(doc.trackId, /^[0-9a-f-]{36}$/);
    assert.equal(doc.history[1].trackId, doc.trackId);
    assert.equal(doc.document.ECF.Encabezado.IdDoc.eNCF, doc.encf, 'the stored document carries its eNCF');

    const events = await t.sql<{ body: string }[]>`select body from events where body like ${'%' + doc.internalTrackId + '%'} order by created_at`;
    // The buyer leg's ecf.receptor_update names the document too; only the status updates count here.
    const payloads = events.map((e) => JSON.parse(e.body)).filter((p) => p.event === 'ecf.status_update');
    assert.deepEqual(payloads.map((p) => p.estado), ['recibido', 'en_proceso', 'aceptado']);
    for (const p of payloads) {
      assert.deepEqual(Object.keys(p), ['event', 'internalTrackId', 'encf', 'estado', 'dgiiCode', 'dgiiMessage', 'trackId', 'secuenciaUtilizada', 'timestamp', 'sequence']);
      assert.equal(p.event, 'ecf.status_update');
      assert.match(p.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    assert.equal(payloads[2].dgiiCode, '0');
  });

  test('the authority\'s other verdicts are aceptado_condicional and rechazado', async () => {
    const a = await newTenantWithCertificate(t.url);
    const headers = { authorization: `Bearer ${a.accessToken}` };
    const marker = (m: string) => ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc, InformacionAdicionalEmisor: m } } });
    const cond = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: marker('[simulador:condicional]'), headers });
    const rej = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: marker('[simulador:rechazar]'), headers });
    const c = await waitForEstado(t.url, 'TesteCF', cond.body.data.internalTrackId, headers, ['aceptado_condicional']);
    const r = await waitForEstado(t.url, 'TesteCF', rej.body.data.internalTrackId, headers, ['rechazado']);
    assert.match(c.dgiiMessage, /Condicional/);
    assert.equal(r.dgiiCode, '2');
  });

  test('50 concurrent emits get 50 consecutive eNCFs: no gaps, no duplicates', async () => {
    const a = await newTenant(t.url);
    const results = await Promise.all(Array.from({ length: 50 }, () =>
      call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, 31), headers: { 'x-api-key': a.apiKey } })));
    assert.deepEqual(results.map((r) => r.status), Array(50).fill(202));
    const numbers = results.map((r) => Number(String(r.body.data.encf).slice(3))).sort((x, y) => x - y);
    assert.deepEqual(numbers, Array.from({ length: 50 }, (_, i) => i + 1));
  });

  test('an eNCF given explicitly is used; reusing it is 409 and the sequence skips it', async () => {
    const a = await newTenant(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const explicit = ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: 'E310000000002' }, Emisor: { RNCEmisor: a.rnc } } });
    const first = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: explicit, headers });
    assert.equal(first.status, 202);
    assert.equal(first.body.data.encf, 'E310000000002');
    const again = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: explicit, headers });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'ENCF_ALREADY_USED');
    const auto = [];
    for (let i = 0; i < 2; i++) auto.push((await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, 31), headers })).body.data.encf);
    assert.deepEqual(auto, ['E310000000001', 'E310000000003']);
  });

  test('an invalid document is 422 listing every problem, and nothing is stored', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: 'E32000000001' }, Emisor: { RNCEmisor: '12', FechaEmision: '31-02-2025' } } });
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers: { 'x-api-key': a.apiKey } });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    for (const p of ['ECF.Encabezado.IdDoc.eNCF', 'ECF.Encabezado.Emisor.RNCEmisor', 'ECF.Encabezado.Emisor.FechaEmision']) assert.ok(paths.includes(p), `${p} in ${paths}`);
    const [row] = await t.sql`select count(*)::int as n from documents where tenant_id = ${a.tenantId}`;
    assert.equal(row?.n, 0);
  });

  test('a control character or U+FFFE in a text field is 422 with its path, and spends no eNCF', async () => {
    const a = await newTenant(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const body = ecfFor(a.rnc, 31);
    const item = (body.ECF.DetallesItems as { Item: Record<string, unknown>[] }).Item[0] as Record<string, unknown>;
    item.NombreItem = 'Tornillo\u0001';
    (body.ECF.Encabezado as { Emisor: Record<string, unknown> }).Emisor.RazonSocialEmisor = 'Caribe \uFFFE';
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    const details = new Map(res.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message]));
    assert.match(String(details.get('ECF.DetallesItems.Item[0].NombreItem')), /U\+0001/);
    assert.match(String(details.get('ECF.Encabezado.Emisor.RazonSocialEmisor')), /U\+FFFE/);
    const next = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, 31), headers });
    assert.equal(next.body.data.encf, 'E310000000001', 'the refused document took no number');
  });

  test('a lone UTF-16 surrogate anywhere in a JSON body is 400 INVALID_JSON, never a 500, and stores nothing', async () => {
    const a = await newTenant(t.url);
    const lone = 'x\ud800';
    const body = ecfFor(a.rnc, 31);
    ((body.ECF.DetallesItems as { Item: Record<string, unknown>[] }).Item[0] as Record<string, unknown>).NombreItem = lone;
    const bearer = { authorization: `Bearer ${a.accessToken}` };
    const attempts: [string, string, unknown, Record<string, string>][] = [
      ['POST', '/TesteCF/documentos-ecf', body, { 'x-api-key': a.apiKey }],
      ['POST', '/TesteCF/documentos-ecf', { ECF: {}, [lone]: 1 }, { 'x-api-key': a.apiKey, 'idempotency-key': 'surrogate-1' }],
      ['POST', '/TesteCF/customer/register', { email: 'lone@example.com', password: 'correct horse battery', name: lone, rnc: '131880691' }, {}],
      ['POST', '/api/keys', { name: lone }, bearer],
      ['PUT', '/api/webhooks/settings', { webhookUrl: `https://example.com/${lone}` }, bearer],
    ];
    for (const [method, path, json, headers] of attempts) {
      const res = await call(t.url, method, path, { json, headers });
      assert.equal(res.status, 400, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'INVALID_JSON');
    }
    const [row] = await t.sql`
      select (select count(*)::int from documents where tenant_id = ${a.tenantId}) as documents,
             (select count(*)::int from idempotency_keys where tenant_id = ${a.tenantId}) as keys,
             (select count(*)::int from api_keys where tenant_id = ${a.tenantId}) as api_keys`;
    assert.deepEqual(row, { documents: 0, keys: 0, apiKeys: 1 });
  });

  test('a document of another RNC than the tenant\'s is 422', async () => {
    const a = await newTenant(t.url);
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor('401506254'), headers: { 'x-api-key': a.apiKey } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.error.details, [{ path: 'ECF.Encabezado.Emisor.RNCEmisor', message: `must be the RNC of this account (${a.rnc})` }]);
  });

  test('emitting needs credentials; an API key and a token of different tenants are 403', async () => {
    const a = await newTenant(t.url);
    const b = await newTenant(t.url);
    assert.equal((await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc) })).status, 401);
    const mixed = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey, authorization: `Bearer ${b.accessToken}` } });
    assert.equal(mixed.status, 403);
    assert.equal(mixed.body.error.code, 'FORBIDDEN');
    const both = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey, authorization: `Bearer ${a.accessToken}` } });
    assert.equal(both.status, 202);
  });

  test('the emit scope allows 30 per minute per tenant', async () => {
    const limited = await startTestService({ database: t.database, env: { ...FAST_PIPELINE, RATE_LIMIT_EMIT_PER_MINUTE: '30', WORKERS_ENABLED: 'false' } });
    try {
      const a = await newTenant(limited.url);
      const emit = () => call(limited.url, 'POST', '/TesteCF/documentos-ecf', { json: { ECF: {} }, headers: { 'x-api-key': a.apiKey } });
      // Until the first 429. A token comes back every 2 s, and a loaded machine may take longer than
      // that for thirty requests, so each 2 s that passed may let one more through.
      const started = Date.now();
      let allowed = 0;
      let refused = null;
      while (refused === null && allowed < 60) {
        const r = await emit();
        if (r.status === 429) refused = r;
        else { assert.equal(r.status, 422); allowed++; }
      }
      const refills = Math.floor((Date.now() - started) / 2000);
      assert.ok(refused !== null, 'a 429 came');
      assert.ok(allowed >= 30 && allowed <= 30 + refills, `${allowed} allowed in ${Date.now() - started} ms`);
      assert.equal(refused.body.error.code, 'RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});

describe('read', () => {
  test('a tenant never sees another tenant\'s documents (404), nor across environments', async () => {
    const a = await newTenant(t.url);
    const b = await newTenant(t.url);
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    const id = res.body.data.internalTrackId;
    assert.equal((await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: { 'x-api-key': a.apiKey } })).status, 200);
    const other = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: { 'x-api-key': b.apiKey } });
    assert.equal(other.status, 404);
    assert.equal(other.body.error.code, 'NOT_FOUND');
    assert.equal((await call(t.url, 'GET', `/eCF/documentos-ecf/${id}`, { headers: { 'x-api-key': a.apiKey } })).status, 404);
    assert.equal((await call(t.url, 'GET', '/TesteCF/documentos-ecf/not-a-uuid', { headers: { 'x-api-key': a.apiKey } })).status, 404);
    const list = await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: { 'x-api-key': b.apiKey } });
    assert.deepEqual(list.body.data, { items: [], nextCursor: null });
  });

  test('the list pages newest first with an opaque cursor and honours every filter', async () => {
    const a = await newTenant(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const ids: string[] = [];
    for (const [tipo, fecha] of [[31, '01-03-2025'], [32, '05-03-2025'], [31, '10-03-2025'], [34, '15-03-2025'], [31, '20-03-2025']] as const) {
      // The credit note modifies a paper NCF: an e-CF it names must exist and be accepted (emission rules).
      const reference = tipo === 34 ? { InformacionReferencia: { NCFModificado: 'B0100000001' } } : {};
      const body = ecfFor(a.rnc, tipo, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc, FechaEmision: fecha } }, ...reference });
      const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers });
      assert.equal(res.status, 202, res.text);
      ids.push(res.body.data.internalTrackId);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResponse<Loose> = await call(t.url, 'GET', `/TesteCF/documentos-ecf?pageSize=2${cursor ? `&cursor=${cursor}` : ''}`, { headers });
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.data.items.length <= 2);
      seen.push(...page.body.data.items.map((d: { internalTrackId: string }) => d.internalTrackId));
      cursor = page.body.data.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(seen, [...ids].reverse());

    const q = async (query: string) => (await call(t.url, 'GET', `/TesteCF/documentos-ecf?${query}`, { headers })).body.data.items.map((d: { internalTrackId: string }) => d.internalTrackId);
    assert.deepEqual(await q('tipo=31'), [ids[4], ids[2], ids[0]]);
    assert.deepEqual(await q('desde=05-03-2025&hasta=2025-03-15'), [ids[3], ids[2], ids[1]]);
    assert.deepEqual(await q('encf=E340000000001'), [ids[3]]);
    assert.deepEqual(await q('estado=rechazado'), []);
  });

  test('estado returns exactly the documents in that state, and a cursor keeps the filter across pages', async () => {
    const a = await newTenant(t.url);
    const headers = { 'x-api-key': a.apiKey };
    // Written directly: no submission job, so their states stay as set.
    const estados = ['aceptado', 'rechazado', 'aceptado', 'en_proceso', 'aceptado', 'rechazado'];
    const ids: string[] = [];
    for (const [i, estado] of estados.entries()) {
      const [row] = await t.sql<{ id: string }[]>`
        insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)
        values (gen_random_uuid(), ${a.tenantId}, 'CerteCF', 31, ${`E31${String(i + 1).padStart(10, '0')}`}, ${estado}, ${a.rnc}, '2025-03-15', 100, '{}'::jsonb)
        returning id`;
      ids.push(row?.id ?? '');
    }
    const list = async (query: string) => {
      const res = await call(t.url, 'GET', `/CerteCF/documentos-ecf?${query}`, { headers });
      assert.equal(res.status, 200, res.text);
      return res.body.data as { items: { internalTrackId: string; estado: string }[]; nextCursor: string | null };
    };
    const idsOf = (page: { items: { internalTrackId: string }[] }) => page.items.map((d) => d.internalTrackId);
    assert.deepEqual(idsOf(await list('estado=aceptado')), [ids[4], ids[2], ids[0]]);
    assert.deepEqual(idsOf(await list('estado=rechazado')), [ids[5], ids[1]]);
    assert.deepEqual(idsOf(await list('estado=en_proceso')), [ids[3]]);
    assert.deepEqual(idsOf(await list('estado=aceptado_condicional')), []);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(`estado=aceptado&pageSize=1${cursor === null ? '' : `&cursor=${cursor}`}`);
      assert.ok(page.items.every((d) => d.estado === 'aceptado'), JSON.stringify(page.items));
      seen.push(...idsOf(page));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    assert.deepEqual(seen, [ids[4], ids[2], ids[0]], 'the filtered pages, newest first, with no other state in between');
  });

  test('bad filters, cursors and unknown parameters are 422, never 500', async () => {
    const a = await newTenant(t.url);
    for (const query of ['estado=perdido', 'tipo=30', 'pageSize=0', 'pageSize=501', 'pageSize=abc', 'cursor=xyz', 'cursor=' + Buffer.from('c1:1; drop table').toString('base64url'), 'desde=31-02-2025', 'hasta=2025-13-01', 'encf=E31', 'colour=red', 'tipo=31&tipo=32']) {
      const res = await call(t.url, 'GET', `/TesteCF/documentos-ecf?${query}`, { headers: { 'x-api-key': a.apiKey } });
      assert.equal(res.status, 422, query);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
  });

  test('the list and its filters are served by indexes on a realistic table', async () => {
    const a = await newTenant(t.url);
    // 20,000 documents: mostly accepted type 31, a few rejected, a few of type 34, a year of dates.
    await t.sql`
      insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)
      select gen_random_uuid(), ${a.tenantId}, 'eCF',
             case when g % 100 = 0 then 34 else 31 end,
             'E' || (case when g % 100 = 0 then 34 else 31 end) || lpad(g::text, 10, '0'),
             case when g % 200 = 0 then 'rechazado' else 'aceptado' end,
             ${a.rnc}, date '2025-01-01' + (g % 365), 100, '{}'::jsonb
      from generate_series(1, 20000) as g`;
    await t.sql`analyze documents`;
    const plan = async (filter: ReturnType<typeof t.sql<Record<string, unknown>[]>>) => {
      const rows = await t.sql`explain select id from documents where tenant_id = ${a.tenantId} and environment = 'eCF' ${filter} order by seq desc limit 51`;
      return rows.map((r) => Object.values(r)[0]).join('\n');
    };
    assert.match(await plan(t.sql``), /Index Scan using documents_recent_idx/);
    assert.match(await plan(t.sql`and estado = 'rechazado'`), /documents_estado_idx/);
    assert.match(await plan(t.sql`and tipo = 34`), /documents_tipo_idx/);
    // documents_stats_idx (sql/0016) starts with the same columns and serves the range as well.
    assert.match(await plan(t.sql`and fecha_emision between '2025-03-01' and '2025-03-02'`), /documents_(fecha|stats)_idx/);
    assert.match(await plan(t.sql`and rnc_comprador = '101672919'`), /documents_comprador_idx/);
    // The overview's count (GET /{env}/estadisticas): a month read from documents_stats_idx alone.
    const stats = await t.sql`explain select fecha_emision, estado, count(*) from documents
      where tenant_id = ${a.tenantId} and environment = 'eCF' and fecha_emision between '2025-03-01' and '2025-03-31' group by fecha_emision, estado`;
    assert.match(stats.map((r) => Object.values(r)[0]).join('\n'), /documents_stats_idx/);
    assert.match(await plan(t.sql`and encf = 'E340000000100'`), /Index Scan using documents_encf_(key|idx)/);
    for (const filter of [t.sql``, t.sql`and estado = 'rechazado'`, t.sql`and tipo = 34`, t.sql`and encf = 'E340000000100'`]) assert.doesNotMatch(await plan(filter), /Seq Scan/);
  });
});
