import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleEcf, type JsonObject } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant, type Loose } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { randomRnc, validCedula, validRnc } from './helpers/tax-ids.ts';
import { waitFor } from './helpers/wait.ts';
import { addDays, dominicanToday, toDgiiDate } from '../src/ecf/encf.ts';
import type { EcfTipo } from '../src/ecf/validation/index.ts';
import { emissionProblems } from '../src/ecf/validation/emission-rules.ts';
import { cedulaCheckDigit, rncCheckDigit, taxIdProblem } from '../src/ecf/tax-id.ts';

// DGII's rules at emission (issue 29), each refused with a 422 naming the path and the value
// expected, before an eNCF is taken: the next valid document of the type gets the number the
// refused one would have had.

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE } });
});
after(async () => t.close());

type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;
type Overrides = JsonObject;

function body(a: Tenant, tipo: EcfTipo, overrides: Overrides = {}): Loose {
  const doc = sampleEcf(tipo, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc } } }) as Loose;
  return { ECF: mergeInto(doc.ECF, overrides) };
}

/** Like the fixtures' deepMerge, on a clone: `undefined` removes a key. */
function mergeInto(base: Loose, overrides: Overrides): Loose {
  const out: Loose = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete out[k];
    else if (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof out[k] === 'object' && out[k] !== null) out[k] = mergeInto(out[k], v as Overrides);
    else out[k] = v;
  }
  return out;
}

async function emit(a: Tenant, json: Loose, env = 'TesteCF') {
  return call(t.url, 'POST', `/${env}/documentos-ecf`, { json, headers: { 'x-api-key': a.apiKey } });
}

/** Asserts a 422 with a detail at `path` whose message matches `message`. */
async function refused(a: Tenant, json: Loose, path: string, message: RegExp): Promise<void> {
  const res = await emit(a, json);
  assert.equal(res.status, 422, res.text);
  const details = res.body.error.details as { path: string; message: string }[];
  assert.ok(details.some((d) => d.path === path && message.test(d.message)), `${path} ${message}: ${res.text}`);
}

/** The next valid document of the type gets number `n`: the refusals spent none. */
async function nextGets(a: Tenant, tipo: EcfTipo, n: number, overrides: Overrides = {}): Promise<Loose> {
  const res = await emit(a, body(a, tipo, overrides));
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.data.encf, `E${tipo}${String(n).padStart(10, '0')}`, 'no number was spent on the refusals');
  return res.body.data;
}

describe('check digits', () => {
  test('DGII\'s RNC (modulus 11, weights 7,9,8,6,5,4,3,2) and cédula (Luhn) check digits hold for real numbers', () => {
    // RNCs from DGII's own documents and registry: DGII (401506254), the Formato e-CF's example
    // buyer (101672919); a cédula from a public validator's worked example (402-0057193-9).
    for (const id of ['401506254', '101672919', '131880681', '40200571939']) assert.equal(taxIdProblem(id), undefined, id);
    assert.equal(rncCheckDigit('40150625'), 4);
    assert.equal(cedulaCheckDigit('4020057193'), 9);
    assert.match(taxIdProblem('401506253') ?? '', /check digit \(modulus 11\) must be 4, i\.e\. 401506254/);
    assert.match(taxIdProblem('40200571930') ?? '', /check digit \(Luhn\) must be 9/);
    assert.match(taxIdProblem('000000000') ?? '', /not a taxpayer/);
    assert.match(taxIdProblem('00000000000') ?? '', /not a taxpayer/);
    // The test helpers make valid numbers from any seed.
    for (let seed = 0; seed < 200; seed += 7) {
      assert.equal(taxIdProblem(validRnc(10_000_000 + seed)), undefined);
      assert.equal(taxIdProblem(validCedula(1_000_000_000 + seed)), undefined);
    }
  });

  test('tenant registration refuses an RNC or cédula with a wrong check digit, naming the right one', async () => {
    const res = await call(t.url, 'POST', '/TesteCF/customer/register', { json: { email: `cd${Date.now()}@example.com`, password: 'a long enough password', name: 'Dígito SRL', rnc: '131880682' } });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.details[0].path, 'rnc');
    assert.match(res.body.error.details[0].message, /must be 1, i\.e\. 131880681/);
    const cedula = await call(t.url, 'POST', '/TesteCF/customer/register', { json: { email: `cd2${Date.now()}@example.com`, password: 'a long enough password', name: 'Persona Física', rnc: '40200571930' } });
    assert.equal(cedula.status, 422, cedula.text);
    assert.match(cedula.body.error.details[0].message, /40200571939/);
    const ok = await newTenant(t.url, { rnc: validCedula('4020057194') });
    assert.equal(ok.rnc.length, 11);
  });

  test('RNCComprador, RNCEmisor and 000000000 are refused at emission; no number is spent', async () => {
    const a = await newTenantWithCertificate(t.url);
    await refused(a, body(a, 31, { Encabezado: { Comprador: { RNCComprador: '101672910' } } }), 'ECF.Encabezado.Comprador.RNCComprador', /must be 9, i\.e\. 101672919/);
    await refused(a, body(a, 31, { Encabezado: { Comprador: { RNCComprador: '000000000' } } }), 'ECF.Encabezado.Comprador.RNCComprador', /not a taxpayer/);
    await refused(a, body(a, 32, { Encabezado: { Comprador: { RNCComprador: '00114272360' } } }), 'ECF.Encabezado.Comprador.RNCComprador', /Luhn\) must be 2/);
    const wrongEmisor = `${a.rnc.slice(0, 8)}${(Number(a.rnc[8]) + 1) % 10}`;
    await refused(a, body(a, 31, { Encabezado: { Emisor: { RNCEmisor: wrongEmisor } } }), 'ECF.Encabezado.Emisor.RNCEmisor', /check digit/);
    await nextGets(a, 31, 1);
    await nextGets(a, 32, 1);
  });

  test('the tenant\'s own RNC as buyer of a type 31 is refused', async () => {
    const a = await newTenantWithCertificate(t.url);
    await refused(a, body(a, 31, { Encabezado: { Comprador: { RNCComprador: a.rnc } } }), 'ECF.Encabezado.Comprador.RNCComprador', new RegExp(`issuer's own RNC \\(${a.rnc}\\)`));
    await nextGets(a, 31, 1);
  });
});

describe('dates', () => {
  test('FechaEmision is compared with today in Santo Domingo (UTC−4), not UTC', () => {
    // 02:00 UTC on the 28th is 22:00 on the 27th in Santo Domingo: the 28th is still tomorrow there.
    const lateEvening = Date.parse('2026-11-28T02:00:00Z');
    const today = dominicanToday(lateEvening);
    assert.equal(today, '2026-11-27');
    const ecf = (fecha: string) => (sampleEcf(31, { Encabezado: { Emisor: { FechaEmision: fecha } } }) as Loose).ECF;
    const problems = emissionProblems(ecf('28-11-2026'), { tipo: 31, rncEmisor: '131880681', today });
    assert.deepEqual(problems.map((p) => p.path), ['ECF.Encabezado.Emisor.FechaEmision']);
    assert.match(problems[0]?.message ?? '', /27-11-2026 or earlier/);
    assert.deepEqual(emissionProblems(ecf('27-11-2026'), { tipo: 31, rncEmisor: '131880681', today }), []);
  });

  test('a FechaEmision after today in Santo Domingo is 422; no number is spent', async () => {
    const a = await newTenantWithCertificate(t.url);
    const tomorrow = toDgiiDate(addDays(dominicanToday(), 1));
    const cash = { TipoPago: 1, FechaLimitePago: undefined };
    await refused(a, body(a, 31, { Encabezado: { IdDoc: cash, Emisor: { FechaEmision: tomorrow } } }), 'ECF.Encabezado.Emisor.FechaEmision', new RegExp(`${toDgiiDate(dominicanToday())} or earlier`));
    await nextGets(a, 31, 1, { Encabezado: { IdDoc: cash, Emisor: { FechaEmision: toDgiiDate(dominicanToday()) } } });
  });

  test('an expired FechaVencimientoSecuencia is 422, and POST /{env}/secuencias refuses a range already expired', async () => {
    const a = await newTenantWithCertificate(t.url);
    const yesterday = toDgiiDate(addDays(dominicanToday(), -1));
    await refused(a, body(a, 31, { Encabezado: { IdDoc: { FechaVencimientoSecuencia: yesterday } } }), 'ECF.Encabezado.IdDoc.FechaVencimientoSecuencia', new RegExp(`expired on ${yesterday}`));
    const range = await call(t.url, 'POST', '/TesteCF/secuencias', { json: { tipo: 31, desde: 'E310000000001', hasta: 'E310000000010', fechaVencimiento: yesterday }, headers: { 'x-api-key': a.apiKey } });
    assert.equal(range.status, 422, range.text);
    assert.equal(range.body.error.details[0].path, 'fechaVencimiento');
    assert.match(range.body.error.details[0].message, /has passed/);
    const today = await call(t.url, 'POST', '/TesteCF/secuencias', { json: { tipo: 31, desde: 'E310000000001', hasta: 'E310000000010', fechaVencimiento: toDgiiDate(dominicanToday()) }, headers: { 'x-api-key': a.apiKey } });
    assert.equal(today.status, 201, `a range expiring today is still usable today: ${today.text}`);
    await nextGets(a, 31, 1, { Encabezado: { IdDoc: { FechaVencimientoSecuencia: undefined } } });
  });
});

describe('per type', () => {
  test('41 needs the informal seller\'s cédula; 43 carries no ITBIS; 44 and 46 identify the buyer, by RNC or foreign id and not both; 45 is sold to the State; 47 names the foreign payee', async () => {
    const a = await newTenantWithCertificate(t.url);
    await refused(a, body(a, 41, { Encabezado: { Comprador: { RNCComprador: '101672919' } } }), 'ECF.Encabezado.Comprador.RNCComprador', /cédula \(11 digits\)/);
    const taxed43 = body(a, 43);
    taxed43.ECF.DetallesItems.Item[0].IndicadorFacturacion = 1;
    await refused(a, taxed43, 'ECF.DetallesItems.Item[0].IndicadorFacturacion', /MontoGravado/);
    await refused(a, body(a, 44, { Encabezado: { Comprador: { RNCComprador: undefined } } }), 'ECF.Encabezado.Comprador.RNCComprador', /RNCComprador or, when foreign, IdentificadorExtranjero/);
    await refused(a, body(a, 46, { Encabezado: { Comprador: { IdentificadorExtranjero: undefined } } }), 'ECF.Encabezado.Comprador.RNCComprador', /RNCComprador or, when foreign, IdentificadorExtranjero/);
    await refused(a, body(a, 44, { Encabezado: { Comprador: { IdentificadorExtranjero: 'PA1234567' } } }), 'ECF.Encabezado.Comprador.IdentificadorExtranjero', /left out when RNCComprador is sent/);
    await refused(a, body(a, 46, { Encabezado: { Comprador: { RNCComprador: '101672919' } } }), 'ECF.Encabezado.Comprador.IdentificadorExtranjero', /left out when RNCComprador is sent/);
    await refused(a, body(a, 45, { Encabezado: { Comprador: { RNCComprador: '101672919' } } }), 'ECF.Encabezado.Comprador.RNCComprador', /government body.*starting with 4/);
    await refused(a, body(a, 47, { Encabezado: { Comprador: undefined } }), 'ECF.Encabezado.Comprador.IdentificadorExtranjero', /foreign payee/);
    for (const tipo of [41, 43, 44, 45, 46, 47] as const) await nextGets(a, tipo, 1);
  });

  test('TipoPago 2 (crédito) needs FechaLimitePago', async () => {
    const a = await newTenantWithCertificate(t.url);
    await refused(a, body(a, 31, { Encabezado: { IdDoc: { FechaLimitePago: undefined } } }), 'ECF.Encabezado.IdDoc.FechaLimitePago', /required when TipoPago is 2/);
    await nextGets(a, 31, 1, { Encabezado: { IdDoc: { FechaLimitePago: undefined, TipoPago: 1 } } });
  });

  test('a type 32 under RD$250,000 may leave Comprador out of the JSON; its XML carries the empty <Comprador> the XSD requires', async () => {
    const a = await newTenantWithCertificate(t.url);
    const doc = await nextGets(a, 32, 1, { Encabezado: { Comprador: undefined } });
    const headers = { 'x-api-key': a.apiKey };
    await waitForEstado(t.url, 'TesteCF', doc.internalTrackId, headers, ['aceptado']);
    const xml = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${doc.internalTrackId}/xml`, { headers });
    assert.match(xml.text, /<Comprador><\/Comprador>|<Comprador\/>/);
  });
});

describe('credit and debit notes', () => {
  const note = (a: Tenant, tipo: 33 | 34, encf: string, overrides: Overrides = {}) =>
    body(a, tipo, mergeInto({ InformacionReferencia: { NCFModificado: encf } }, overrides));

  test('a note carries the modified e-CF\'s date, is not dated before it, is for its buyer, and a 34 credits no more than is left; paper NCFs are accepted', async () => {
    const a = await newTenantWithCertificate(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const original = await nextGets(a, 31, 1);
    await waitForEstado(t.url, 'TesteCF', original.internalTrackId, headers, ['aceptado']);
    const encf = original.encf as string;

    await refused(a, note(a, 34, encf, { InformacionReferencia: { FechaNCFModificado: '14-03-2025' } }), 'ECF.InformacionReferencia.FechaNCFModificado', /must be 15-03-2025, the FechaEmision of E310000000001/);
    await refused(a, note(a, 33, encf, { Encabezado: { Emisor: { FechaEmision: '14-03-2025' } } }), 'ECF.Encabezado.Emisor.FechaEmision', /must not be before 15-03-2025/);
    await refused(a, note(a, 34, encf, { Encabezado: { Comprador: { RNCComprador: randomRnc() } } }), 'ECF.Encabezado.Comprador.RNCComprador', /must be 101672919, the buyer of E310000000001/);

    // The original totals 112467.00; each sample credit note 53950.00.
    await nextGets(a, 34, 1, { InformacionReferencia: { NCFModificado: encf } });
    await nextGets(a, 34, 2, { InformacionReferencia: { NCFModificado: encf } });
    await refused(a, note(a, 34, encf), 'ECF.Encabezado.Totales.MontoTotal', /must not exceed 4567\.00: E310000000001 totals 112467\.00 and credit notes of 107900\.00/);
    await nextGets(a, 33, 1, { InformacionReferencia: { NCFModificado: encf } });

    // A paper NCF (B series) is not ours to check: its date and buyer are the client's word.
    const paper = await emit(a, note(a, 34, 'B0100000001', { InformacionReferencia: { FechaNCFModificado: '01-03-2025' } }));
    assert.equal(paper.status, 202, paper.text);
    assert.equal(paper.body.data.encf, 'E340000000003');
  });

  test('credit notes emitted at once against one e-CF credit no more than is left: the one over is 422 and spends no number', async () => {
    const a = await newTenantWithCertificate(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const original = await nextGets(a, 31, 1);
    await waitForEstado(t.url, 'TesteCF', original.internalTrackId, headers, ['aceptado']);
    // The original totals 112467.00 and each credit note 53950.00: two fit, the third does not.
    // Each emit's own check sees no note yet; only one of the three may be refused.
    const results = await Promise.all([1, 2, 3].map(() => emit(a, note(a, 34, original.encf as string))));
    const taken = results.filter((r) => r.status === 202).map((r) => r.body.data.encf as string).sort();
    const over = results.filter((r) => r.status === 422);
    assert.deepEqual(taken, ['E340000000001', 'E340000000002'], results.map((r) => `${r.status} ${r.text}`).join('\n'));
    assert.equal(over.length, 1);
    const detail = (over[0]?.body.error.details as { path: string; message: string }[])[0];
    assert.equal(detail?.path, 'ECF.Encabezado.Totales.MontoTotal');
    assert.match(detail?.message ?? '', /must not exceed/);
    // No number was spent on it: the next note of the type (a paper NCF's, unchecked) takes 3.
    const next = await emit(a, note(a, 34, 'B0100000001', { InformacionReferencia: { FechaNCFModificado: '01-03-2025' } }));
    assert.equal(next.body.data.encf, 'E340000000003', next.text);
  });

  test('a credit note refused or in error credits nothing', async () => {
    const a = await newTenantWithCertificate(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const original = await nextGets(a, 31, 1);
    await waitForEstado(t.url, 'TesteCF', original.internalTrackId, headers, ['aceptado']);
    const rejected = await nextGets(a, 34, 1, { InformacionReferencia: { NCFModificado: original.encf }, Encabezado: { Emisor: { InformacionAdicionalEmisor: '[simulador:rechazar]' } } });
    await waitFor(async () => ((await call(t.url, 'GET', `/TesteCF/documentos-ecf/${rejected.internalTrackId}`, { headers })).body.data.estado === 'rechazado' ? true : undefined), 20_000, 'rejection');
    await nextGets(a, 34, 2, { InformacionReferencia: { NCFModificado: original.encf } });
    await nextGets(a, 34, 3, { InformacionReferencia: { NCFModificado: original.encf } });
  });
});
