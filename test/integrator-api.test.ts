import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, client, newTenant } from './helpers/http.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// What an ERP integrator relies on: the example bodies, API keys scoped by environment and
// read-only, and the ERP's own referencia and metadata on emitted documents.

const EXAMPLES = fileURLToPath(new URL('../scripts/examples/', import.meta.url));
const EXAMPLE_RNC = '131880681';

let t: TestService;
const receivers: Receiver[] = [];
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' } });
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

test('each example of scripts/examples/ is emitted unchanged through the simulator to aceptado', async () => {
  const a = await newTenantWithCertificate(t.url, { rnc: EXAMPLE_RNC });
  const headers = { 'x-api-key': a.apiKey };
  const bodies = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).sort()
    .map((file) => ({ file, body: JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) }));
  // Notes (33, 34) last: DGII takes a note only of an e-CF it accepted, so each waits for the one it names.
  const isNote = (b: { body: { ECF: { Encabezado: { IdDoc: { TipoeCF: number } } } } }) => [33, 34].includes(b.body.ECF.Encabezado.IdDoc.TipoeCF);
  const tipos: number[] = [];
  const ids = new Map<string, string>();
  const byEncf = new Map<string, string>();
  for (const { file, body } of [...bodies.filter((b) => !isNote(b)), ...bodies.filter(isNote)]) {
    tipos.push(body.ECF.Encabezado.IdDoc.TipoeCF);
    const modified = byEncf.get(body.ECF.InformacionReferencia?.NCFModificado);
    if (modified !== undefined) await waitForEstado(t.url, 'TesteCF', modified, headers, ['aceptado']);
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers });
    if (res.status === 202) byEncf.set(res.body.data.encf, res.body.data.internalTrackId);
    assert.equal(res.status, 202, `${file}: ${res.text}`);
    ids.set(file, res.body.data.internalTrackId);
  }
  assert.deepEqual(tipos.sort(), [31, 32, 33, 34, 41, 43, 44, 45, 46, 47]);
  for (const [file, id] of ids) {
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'aceptado_condicional', 'rechazado', 'error']);
    assert.equal(doc.estado, 'aceptado', `${file}: ${doc.dgiiMessage}`);
  }
});

describe('scoped API keys', () => {
  test('the key made by register acts only in its environment; outside it is 403 FORBIDDEN saying why', async () => {
    const email = `scoped${Date.now()}@example.com`;
    const reg = await call(t.url, 'POST', '/certecf/customer/register', { json: { email, password: 'correct horse battery staple', name: 'Scoped SRL', rnc: '130000001' } });
    assert.equal(reg.status, 201, reg.text);
    assert.deepEqual(reg.body.data.apiKey.environments, ['CerteCF']);
    assert.equal(reg.body.data.apiKey.readOnly, false);
    const key = { 'x-api-key': reg.body.data.apiKey.key as string };
    assert.equal((await call(t.url, 'GET', '/CerteCF/documentos-ecf', { headers: key })).status, 200);
    for (const env of ['TesteCF', 'eCF']) {
      const res = await call(t.url, 'POST', `/${env}/documentos-ecf`, { json: ecfFor('130000001'), headers: key });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
      assert.match(res.body.error.message, new RegExp(`only be used in CerteCF; it is not valid in ${env}`));
    }
    // Routes without an environment are not limited by it.
    assert.equal((await call(t.url, 'GET', '/api/whoami', { headers: key })).status, 200);
  });

  test('POST /api/keys defaults to TesteCF and CerteCF, takes environments and readOnly, and refuses bad ones', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    const plain = await api.post('/api/keys', { json: { name: 'ERP' } });
    assert.equal(plain.status, 201);
    assert.deepEqual(plain.body.data.environments, ['TesteCF', 'CerteCF']);
    const prodRes = await call(t.url, 'POST', '/eCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': plain.body.data.key } });
    assert.equal(prodRes.status, 403, 'production must be asked for');

    const prod = await api.post('/api/keys', { json: { environments: ['ecf'], readOnly: true } });
    assert.equal(prod.status, 201, prod.text);
    assert.deepEqual(prod.body.data.environments, ['eCF']);
    assert.equal(prod.body.data.readOnly, true);
    const ro = { 'x-api-key': prod.body.data.key as string };
    assert.equal((await call(t.url, 'GET', '/eCF/documentos-ecf', { headers: ro })).status, 200);
    const write = await call(t.url, 'POST', '/eCF/documentos-ecf', { json: ecfFor(a.rnc), headers: ro });
    assert.equal(write.status, 403);
    assert.equal(write.body.error.code, 'FORBIDDEN');
    assert.match(write.body.error.message, /read-only/);

    const listed = (await api.get('/api/keys')).body.data.find((k: { id: string }) => k.id === prod.body.data.id);
    assert.deepEqual([listed.environments, listed.readOnly], [['eCF'], true]);

    for (const [body, path] of [
      [{ environments: ['Produccion'] }, 'environments[0]'],
      [{ environments: [] }, 'environments'],
      [{ environments: 'TesteCF' }, 'environments'],
      [{ environments: ['TesteCF', 'testecf'] }, 'environments[1]'],
      [{ readOnly: 'yes' }, 'readOnly'],
    ] as const) {
      const bad = await api.post('/api/keys', { json: body });
      assert.equal(bad.status, 422, JSON.stringify(body));
      assert.ok(bad.body.error.details.some((d: { path: string }) => d.path === path), bad.text);
    }
  });

  test('PATCH /api/keys/{id} changes the scope at once on this instance', async () => {
    const a = await newTenant(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    const made = await api.post('/api/keys', { json: {} });
    const key = { 'x-api-key': made.body.data.key as string };
    assert.equal((await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: key })).status, 200);
    const patched = await api.patch(`/api/keys/${made.body.data.id}`, { json: { environments: ['eCF'] } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual([patched.body.data.environments, patched.body.data.readOnly], [['eCF'], false]);
    assert.equal((await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: key })).status, 403);
    assert.equal((await call(t.url, 'GET', '/eCF/documentos-ecf', { headers: key })).status, 200);
    assert.equal((await api.patch(`/api/keys/${made.body.data.id}`, { json: { environments: ['Nope'] } })).status, 422);
    const other = await newTenant(t.url);
    assert.equal((await call(t.url, 'PATCH', `/api/keys/${made.body.data.id}`, { json: { readOnly: true }, headers: { authorization: `Bearer ${other.accessToken}` } })).status, 404);
  });
});

describe('ERP referencia and metadata', () => {
  test('are stored and returned, filter the list, stay out of the XML and reach the webhook under erp', async () => {
    const a = await newTenantWithCertificate(t.url);
    const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
    const r = await startReceiver();
    receivers.push(r);
    await api.put('/api/webhooks/settings', { json: { webhookUrl: r.url } });
    const headers = { 'x-api-key': a.apiKey };
    // Keys as an ERP writes them: none is renamed on the way back (no camelCase of "pedido_id").
    const metadata = { pedido: 'PED-1001', sucursal: 'SucursalNorte-77', pedido_id: '1001', 'centro-costo': 'CC_9' };
    const emit = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: { ...ecfFor(a.rnc), referencia: 'ERP-ORD-1001', metadata }, headers });
    assert.equal(emit.status, 202, emit.text);
    assert.equal(emit.body.data.referencia, 'ERP-ORD-1001');
    assert.deepEqual(emit.body.data.metadata, metadata);
    await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: { ...ecfFor(a.rnc), referencia: 'ERP-ORD-1002' }, headers });
    const plain = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers });
    const id = emit.body.data.internalTrackId;
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    assert.equal(doc.referencia, 'ERP-ORD-1001');
    assert.deepEqual(doc.metadata, metadata);

    const listed = await call(t.url, 'GET', '/TesteCF/documentos-ecf?referencia=ERP-ORD-1001', { headers });
    assert.deepEqual(listed.body.data.items.map((d: { internalTrackId: string }) => d.internalTrackId), [id]);
    assert.equal(listed.body.data.items[0].referencia, 'ERP-ORD-1001');
    assert.equal((await call(t.url, 'GET', '/TesteCF/documentos-ecf?referencia=nada', { headers })).body.data.items.length, 0);

    const xml = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}/xml`, { headers })).text;
    assert.ok(xml.includes('<ECF'));
    for (const s of ['ERP-ORD-1001', 'PED-1001', 'SucursalNorte-77', 'referencia', 'metadata']) assert.ok(!xml.includes(s), `${s} is not in the XML`);

    const events = await waitFor(async () => {
      const mine = r.received.filter((x) => x.json.internalTrackId === id && x.json.event === 'ecf.status_update');
      return mine.length === 3 ? mine : undefined;
    });
    for (const e of events) assert.deepEqual(e.json.erp, { referencia: 'ERP-ORD-1001', metadata });
    const plainEvent = await waitFor(async () => r.received.find((x) => x.json.internalTrackId === plain.body.data.internalTrackId && x.json.event === 'ecf.status_update'));
    assert.equal('erp' in plainEvent.json, false, 'no erp key for a document without them');
  });

  test('a malformed referencia or metadata is 422 naming the field, beside the e-CF\'s own problems', async () => {
    const a = await newTenant(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    const cases: [Record<string, unknown>, string][] = [
      [{ referencia: '' }, 'referencia'],
      [{ referencia: 'x'.repeat(101) }, 'referencia'],
      [{ referencia: 'a\u0007b' }, 'referencia'],
      [{ referencia: 42 }, 'referencia'],
      [{ metadata: [] }, 'metadata'],
      [{ metadata: 'x' }, 'metadata'],
      [{ metadata: null }, 'metadata'],
      [{ metadata: many }, 'metadata'],
      [{ metadata: { a: 'x'.repeat(4100) } }, 'metadata'],
      [{ metadata: { a: 1 } }, 'metadata.a'],
      [{ metadata: { a: { b: 'c' } } }, 'metadata.a'],
      [{ other: 1 }, 'other'],
    ];
    for (const [extra, path] of cases) {
      const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: { ...ecfFor(a.rnc), ...extra }, headers });
      assert.equal(res.status, 422, JSON.stringify(extra).slice(0, 80));
      assert.ok(res.body.error.details.some((d: { path: string }) => d.path === path), `${path}: ${res.text.slice(0, 300)}`);
    }
    const both = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: { ECF: {}, referencia: '' }, headers });
    assert.equal(both.status, 422);
    const paths = both.body.error.details.map((d: { path: string }) => d.path);
    assert.ok(paths.includes('referencia') && paths.some((p: string) => p.startsWith('ECF')), paths.join());
    const query = await call(t.url, 'GET', `/TesteCF/documentos-ecf?referencia=${encodeURIComponent('a\u0001')}`, { headers });
    assert.equal(query.status, 422);
  });
});
