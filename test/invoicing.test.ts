// The API behind "Nueva factura": saved customers and items (check digits, one per RNC or
// description, per tenant, bounded), the directory's name of an RNC, and the unsigned draft
// PDF (marked, never numbered, validated as the emit validates, nothing stored).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE } from './helpers/documents.ts';
import { call, newTenant, type Loose } from './helpers/http.ts';
import { PdfTools } from './helpers/pdf-tools.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
let a: Awaited<ReturnType<typeof newTenantWithCertificate>>;
let other: Awaited<ReturnType<typeof newTenant>>;
const tools = new PdfTools();
/** RNCs with DGII's check digit. */
const ISSUER = '131880681';
const BUYER = '101672919';
const OTHER = '401007551';

before(async () => {
  t = await startTestService({ env: FAST_PIPELINE });
  a = await newTenantWithCertificate(t.url, { rnc: ISSUER });
  other = await newTenant(t.url, { rnc: OTHER });
});
after(async () => {
  tools.close();
  await t?.close();
});

const as = (key: string) => ({ 'x-api-key': key });

test('saved customers: check digits judged, one per RNC (saving again updates), per tenant, bounded lists', async () => {
  const bad = await call(t.url, 'POST', '/api/clientes', { json: { rnc: '101672918', nombre: 'X' }, headers: as(a.apiKey) });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.error.details, [{ path: 'rnc', message: 'has a wrong check digit' }]);
  const malformed = await call(t.url, 'POST', '/api/clientes', { json: { rnc: '1016729', nombre: '', correo: 'no', extra: 1 }, headers: as(a.apiKey) });
  assert.equal(malformed.status, 422);
  assert.deepEqual(malformed.body.error.details.map((d: Loose) => d.path).sort(), ['correo', 'extra', 'nombre', 'rnc']);

  const created = await call(t.url, 'POST', '/api/clientes', { json: { rnc: BUYER, nombre: 'Ferretería Ochoa SRL', correo: 'compras@ochoa.do' }, headers: as(a.apiKey) });
  assert.equal(created.status, 201, created.text);
  const again = await call(t.url, 'POST', '/api/clientes', { json: { rnc: BUYER, nombre: 'Ferretería Ochoa & Asociados SRL', correo: null }, headers: as(a.apiKey) });
  assert.equal(again.status, 200, 'the same RNC updates');
  assert.equal(again.body.data.id, created.body.data.id);
  await call(t.url, 'POST', '/api/clientes', { json: { rnc: '00113918205', nombre: 'María Peña' }, headers: as(a.apiKey) });

  const list = await call(t.url, 'GET', '/api/clientes', { headers: as(a.apiKey) });
  assert.deepEqual(list.body.data.map((c: Loose) => [c.nombre, c.rnc, c.correo]), [['Ferretería Ochoa & Asociados SRL', BUYER, null], ['María Peña', '00113918205', null]]);
  assert.deepEqual((await call(t.url, 'GET', `/api/clientes?rnc=${BUYER}`, { headers: as(a.apiKey) })).body.data.map((c: Loose) => c.rnc), [BUYER]);
  assert.deepEqual((await call(t.url, 'GET', '/api/clientes?q=pe%C3%B1a', { headers: as(a.apiKey) })).body.data.map((c: Loose) => c.rnc), ['00113918205']);
  assert.deepEqual((await call(t.url, 'GET', '/api/clientes?q=%25', { headers: as(a.apiKey) })).body.data, [], '% is a character, not a wildcard');
  assert.equal((await call(t.url, 'GET', '/api/clientes?limit=501', { headers: as(a.apiKey) })).status, 422);
  assert.equal((await call(t.url, 'GET', `/api/clientes?q=${'x'.repeat(101)}`, { headers: as(a.apiKey) })).status, 422);
  assert.equal((await call(t.url, 'GET', '/api/clientes?rnc=12', { headers: as(a.apiKey) })).status, 422);

  // Another tenant sees none of them and cannot touch them.
  assert.deepEqual((await call(t.url, 'GET', '/api/clientes', { headers: as(other.apiKey) })).body.data, []);
  const id = created.body.data.id as string;
  assert.equal((await call(t.url, 'PUT', `/api/clientes/${id}`, { json: { rnc: BUYER, nombre: 'Robado' }, headers: as(other.apiKey) })).status, 404);
  assert.equal((await call(t.url, 'DELETE', `/api/clientes/${id}`, { headers: as(other.apiKey) })).status, 404);

  const clash = await call(t.url, 'PUT', `/api/clientes/${id}`, { json: { rnc: '00113918205', nombre: 'Otro' }, headers: as(a.apiKey) });
  assert.equal(clash.status, 409, clash.text);
  const renamed = await call(t.url, 'PUT', `/api/clientes/${id}`, { json: { rnc: BUYER, nombre: 'Ochoa SRL', correo: 'a@b.do' }, headers: as(a.apiKey) });
  assert.deepEqual([renamed.status, renamed.body.data.nombre, renamed.body.data.correo], [200, 'Ochoa SRL', 'a@b.do']);
  assert.equal((await call(t.url, 'DELETE', `/api/clientes/${id}`, { headers: as(a.apiKey) })).status, 200);
  assert.equal((await call(t.url, 'DELETE', `/api/clientes/${id}`, { headers: as(a.apiKey) })).status, 404);
});

test('saved items: prices kept as decimal text, one per description, rate and kind checked', async () => {
  const bad = await call(t.url, 'POST', '/api/articulos', { json: { descripcion: 'Cable', precioUnitario: '1.23456', indicadorFacturacion: 5, indicadorBienoServicio: 3 }, headers: as(a.apiKey) });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.error.details.map((d: Loose) => d.path).sort(), ['indicadorBienoServicio', 'indicadorFacturacion', 'precioUnitario']);
  const created = await call(t.url, 'POST', '/api/articulos', { json: { descripcion: 'Cable UTP cat. 6 (metro)', precioUnitario: '12345678901234.5678', indicadorFacturacion: 1, indicadorBienoServicio: 1 }, headers: as(a.apiKey) });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.data.precioUnitario, '12345678901234.5678', 'every digit, no float');
  const updated = await call(t.url, 'POST', '/api/articulos', { json: { descripcion: 'Cable UTP cat. 6 (metro)', precioUnitario: '45', indicadorFacturacion: 4, indicadorBienoServicio: 1 }, headers: as(a.apiKey) });
  assert.deepEqual([updated.status, updated.body.data.precioUnitario, updated.body.data.indicadorFacturacion], [200, '45.00', 4]);
  assert.deepEqual((await call(t.url, 'GET', '/api/articulos', { headers: as(other.apiKey) })).body.data, []);
});

test('the directory gives the name of an RNC it lists, null for one it does not, and 422 for a wrong check digit', async () => {
  const listed = await call(t.url, 'GET', `/TesteCF/directorio/${OTHER}`, { headers: as(a.apiKey) });
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.data, { rnc: OTHER, nombre: (await call(t.url, 'GET', '/api/account', { headers: { authorization: `Bearer ${other.accessToken}` } })).body.data.tenant.name });
  const unknown = await call(t.url, 'GET', `/TesteCF/directorio/${BUYER}`, { headers: as(a.apiKey) });
  assert.deepEqual([unknown.status, unknown.body.data], [200, { rnc: BUYER, nombre: null }]);
  assert.equal((await call(t.url, 'GET', '/TesteCF/directorio/101672918', { headers: as(a.apiKey) })).status, 422);
});

test('a draft PDF is marked, carries no eNCF, is validated like the emit, and stores nothing', async () => {
  const body = ecfFor(ISSUER, 31);
  const res = await fetch(`${t.url}/TesteCF/documentos-ecf/borrador/pdf`, { method: 'POST', headers: { ...as(a.apiKey), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  const pdf = Buffer.from(await res.arrayBuffer());
  assert.equal(tools.check(pdf).status, 0);
  const text = tools.text(pdf).replace(/\s+/g, ' ');
  assert.match(text, /BORRADOR — sin validez fiscal/);
  assert.doesNotMatch(text, /E31\d{10}/, 'never numbered');
  assert.match(text, /112,467\.00/, 'the document\'s total');
  assert.deepEqual(tools.readQrCodes(pdf), ['BORRADOR — sin validez fiscal'], 'no verification link');

  const numbered = await call(t.url, 'POST', '/TesteCF/documentos-ecf/borrador/pdf', { json: ecfFor(ISSUER, 31, { Encabezado: { IdDoc: { eNCF: 'E310000000009' } } }), headers: as(a.apiKey) });
  assert.equal(numbered.status, 422);
  assert.deepEqual(numbered.body.error.details.map((d: Loose) => d.path), ['ECF.Encabezado.IdDoc.eNCF']);
  const wrongTotal = await call(t.url, 'POST', '/TesteCF/documentos-ecf/borrador/pdf', { json: ecfFor(ISSUER, 31, { Encabezado: { Totales: { TotalITBIS1: '1.00' } } }), headers: as(a.apiKey) });
  assert.equal(wrongTotal.status, 422);
  assert.ok(wrongTotal.body.error.details.some((d: Loose) => d.path === 'ECF.Encabezado.Totales.TotalITBIS1'));
  const notOurs = await call(t.url, 'POST', '/TesteCF/documentos-ecf/borrador/pdf', { json: ecfFor(ISSUER, 31), headers: as(other.apiKey) });
  assert.equal(notOurs.status, 422);
  assert.deepEqual(notOurs.body.error.details.map((d: Loose) => d.path), ['ECF.Encabezado.Emisor.RNCEmisor']);

  assert.deepEqual((await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: as(a.apiKey) })).body.data.items, [], 'nothing stored');
});
