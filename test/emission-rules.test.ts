import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleEcf } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { call, type Loose } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';
import { validateEcf } from '../src/ecf/validation/index.ts';

// Rules DGII enforces at emission, checked before a number is spent: a type 32 of RD$250,000
// or more identifies its buyer; a 33 or 34 that modifies an e-CF of this tenant names one that
// exists and was accepted (a paper NCF is not checked).

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true' } });
});
after(async () => t.close());

function large32(comprador: Record<string, unknown> | undefined): Loose {
  const body = sampleEcf(32) as Loose;
  body.ECF.Encabezado.Totales.MontoTotal = '300000.00';
  if (comprador === undefined) delete body.ECF.Encabezado.Comprador;
  else body.ECF.Encabezado.Comprador = comprador;
  return body;
}

const rule = (errors: { path: string; message: string }[]) => errors.filter((e) => /250,000/.test(e.message)).map((e) => e.path);

test('a type 32 of RD$250,000 or more must identify its buyer', () => {
  const without = validateEcf(large32(undefined));
  assert.ok(!without.ok);
  assert.deepEqual(rule(without.errors).sort(), ['ECF.Encabezado.Comprador.RNCComprador', 'ECF.Encabezado.Comprador.RazonSocialComprador']);
  const withBuyer = validateEcf(large32({ RNCComprador: '131880681', RazonSocialComprador: 'Distribuidora SRL' }));
  assert.deepEqual(withBuyer.ok ? [] : rule(withBuyer.errors), []);
  const foreign = validateEcf(large32({ IdentificadorExtranjero: 'P1234567', RazonSocialComprador: 'Buyer Inc' }));
  assert.deepEqual(foreign.ok ? [] : rule(foreign.errors), []);
  const small = sampleEcf(32) as Loose;
  delete small.ECF.Encabezado.Comprador;
  const smallResult = validateEcf(small);
  assert.deepEqual(smallResult.ok ? [] : rule(smallResult.errors), []);
});

function note(rnc: string, tipo: 33 | 34, ncf: string): Loose {
  return sampleEcf(tipo, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: rnc } }, InformacionReferencia: { NCFModificado: ncf } });
}

test('a 33 or 34 must modify an e-CF of this tenant that exists and was accepted; a paper NCF is not checked; no number is spent on a refusal', async () => {
  const a = await newTenantWithCertificate(t.url);
  const headers = { 'x-api-key': a.apiKey };
  const emit = (body: Loose) => call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers });

  const missing = await emit(note(a.rnc, 34, 'E310000000777'));
  assert.equal(missing.status, 422, missing.text);
  assert.equal(missing.body.error.details[0].path, 'ECF.InformacionReferencia.NCFModificado');
  assert.match(missing.body.error.details[0].message, /was not issued/);

  const original = await emit(sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc } } }));
  assert.equal(original.status, 202, original.text);
  const encf = original.body.data.encf as string;
  const notYet = await emit(note(a.rnc, 33, encf));
  if (notYet.status === 422) assert.match(notYet.body.error.details[0].message, /accepted/);
  await waitFor(async () => ((await call(t.url, 'GET', `/TesteCF/documentos-ecf/${original.body.data.internalTrackId}`, { headers })).body.data.estado === 'aceptado' ? true : undefined), 20_000, 'acceptance');

  const accepted = await emit(note(a.rnc, 34, encf));
  assert.equal(accepted.status, 202, accepted.text);
  assert.equal(accepted.body.data.encf, 'E340000000001', 'the refused note spent no number');

  const paper = await emit(note(a.rnc, 33, 'B0100000001'));
  assert.notEqual(paper.status, 422, paper.text);
});

test('a 33 or 34 naming a rejected e-CF is refused', async () => {
  const a = await newTenantWithCertificate(t.url);
  await t.sql`
    insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)
    values (gen_random_uuid(), ${a.tenantId}, 'TesteCF', 31, 'E310000000555', 'rechazado', ${a.rnc}, '2025-03-01', 100, '{}'::jsonb)`;
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: note(a.rnc, 34, 'E310000000555'), headers: { 'x-api-key': a.apiKey } });
  assert.equal(res.status, 422, res.text);
  assert.match(res.body.error.details[0].message, /rechazado/);
});
