import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleEcf, SEQUENCE_EXPIRY } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, type Loose } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// DGII's answer says whether a document's eNCF was used (secuenciaUtilizada). The service stores
// it, shows it (document, ecf.status_update) and, when DGII did not use the number, lets it be
// emitted again or annulled instead of stranding it (issue 29).

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE } });
});
after(async () => t.close());

type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;
const E31 = (n: number) => `E31${String(n).padStart(10, '0')}`;

function emit(a: Tenant, idDoc: Record<string, unknown>, notes?: string) {
  const emisor: Record<string, unknown> = { RNCEmisor: a.rnc };
  if (notes !== undefined) emisor.InformacionAdicionalEmisor = notes;
  return call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined, FechaVencimientoSecuencia: undefined, ...idDoc }, Emisor: emisor } }), headers: { 'x-api-key': a.apiKey } });
}

async function statusUpdates(a: Tenant, encf: string): Promise<Loose[]> {
  const rows = await t.sql<{ body: string }[]>`select body from events where tenant_id = ${a.tenantId} and kind = 'ecf.status_update' order by created_at`;
  return rows.map((r) => JSON.parse(r.body) as Loose).filter((e) => e.encf === encf);
}

test('a rejected eNCF DGII says was not used is shown so, and a new document can be emitted with it', async () => {
  const a = await newTenantWithCertificate(t.url);
  const headers = { 'x-api-key': a.apiKey };
  const range = await call(t.url, 'POST', '/TesteCF/secuencias', { json: { tipo: 31, desde: E31(1), hasta: E31(20), fechaVencimiento: SEQUENCE_EXPIRY }, headers });
  assert.equal(range.status, 201, range.text);

  const rejected = await emit(a, {}, '[simulador:rechazar]');
  assert.equal(rejected.status, 202, rejected.text);
  assert.equal(rejected.body.data.encf, E31(1));
  const doc = await waitForEstado(t.url, 'TesteCF', rejected.body.data.internalTrackId, headers, ['rechazado']);
  assert.equal(doc.secuenciaUtilizada, false);
  const listed = await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers });
  assert.equal(listed.body.data.items.find((d: Loose) => d.encf === E31(1)).secuenciaUtilizada, false);
  const events = await statusUpdates(a, E31(1));
  assert.equal(events.at(-1)?.estado, 'rechazado');
  assert.equal(events.at(-1)?.secuenciaUtilizada, false);
  assert.equal(events[0]?.secuenciaUtilizada, null, 'unknown until DGII says');

  // The number is free again: a new document takes it, and DGII accepts it.
  const again = await emit(a, { eNCF: E31(1) });
  assert.equal(again.status, 202, again.text);
  assert.notEqual(again.body.data.internalTrackId, rejected.body.data.internalTrackId);
  const accepted = await waitForEstado(t.url, 'TesteCF', again.body.data.internalTrackId, headers, ['aceptado', 'rechazado', 'error']);
  assert.equal(accepted.estado, 'aceptado', accepted.dgiiMessage);
  assert.equal(accepted.secuenciaUtilizada, true);
  // Now it is used: a third one is refused.
  const third = await emit(a, { eNCF: E31(1) });
  assert.equal(third.status, 409, third.text);
  assert.equal(third.body.error.code, 'ENCF_ALREADY_USED');
  // Numbering carries on where it was.
  assert.equal((await emit(a, {})).body.data.encf, E31(2));
});

test('a rejected eNCF DGII says was not used can be annulled with an ANECF; one it used cannot', async () => {
  const a = await newTenantWithCertificate(t.url);
  const headers = { 'x-api-key': a.apiKey };
  await call(t.url, 'POST', '/TesteCF/secuencias', { json: { tipo: 31, desde: E31(1), hasta: E31(20), fechaVencimiento: SEQUENCE_EXPIRY }, headers });
  const rejected = await emit(a, {}, '[simulador:rechazar]');
  await waitForEstado(t.url, 'TesteCF', rejected.body.data.internalTrackId, headers, ['rechazado']);
  const used = await emit(a, {});
  await waitForEstado(t.url, 'TesteCF', used.body.data.internalTrackId, headers, ['aceptado']);

  const blocked = await call(t.url, 'POST', '/TesteCF/anulaciones', { json: { tipo: 31, desde: E31(1), hasta: E31(2) }, headers });
  assert.equal(blocked.status, 409, blocked.text);
  assert.match(blocked.body.error.message, /E310000000002, which is aceptado/);

  const annul = await call(t.url, 'POST', '/TesteCF/anulaciones', { json: { tipo: 31, desde: E31(1), hasta: E31(1) }, headers });
  assert.equal(annul.status, 202, annul.text);
  const decided = await waitFor(async () => {
    const got = await call(t.url, 'GET', `/TesteCF/anulaciones/${annul.body.data.id}`, { headers });
    return got.body.data.estado !== 'recibido' ? got.body.data : undefined;
  }, 10_000, 'the annulment decided');
  assert.equal(decided.estado, 'aceptado', JSON.stringify(decided));
  const reuse = await emit(a, { eNCF: E31(1) });
  assert.equal(reuse.status, 409, 'annulled now');
  assert.equal(reuse.body.error.code, 'ENCF_ANNULLED');
});
