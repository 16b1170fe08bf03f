import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { addDays, dominicanToday, toDgiiDate } from '../../src/ecf/encf.ts';
import { sampleEcf } from '../fixtures/ecf.ts';
import { makeTestCertificate, uploadCertificate } from '../helpers/certificates.ts';
import { waitForEstado } from '../helpers/documents.ts';
import { call, newTenant } from '../helpers/http.ts';
import { waitFor } from '../helpers/wait.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';
import { startSharedSimulator, type SharedSimulator } from './helpers/simulator.ts';

// Issue 28, item 3, across two service processes on one database and one DGII: for each of a
// dozen documents in error, POST …/reenviar goes to one instance and POST /{env}/anulaciones of
// its eNCF to the other, at the same moment. Exactly one of each pair is taken (202), the other
// is a 409; once DGII has decided everything, no eNCF has both an accepted annulment and an
// accepted document.

const DOCUMENTS = 12;
const FINAL = ['aceptado', 'aceptado_condicional', 'rechazado', 'error', 'anulado'];

let database: TestDatabase;
let sim: SharedSimulator;
let one: Instance;
let two: Instance;

before(async () => {
  database = await faultDatabase();
  sim = await startSharedSimulator(100);
  const env = await faultEnv(database.url, { ...sim.env, RATE_LIMIT_EMIT_PER_MINUTE: '100000', RATE_LIMIT_DEFAULT_PER_MINUTE: '100000' });
  [one, two] = await Promise.all([startInstance(env), startInstance(env)]);
});

after(async () => {
  await stopAllInstances();
  await sim?.close();
  await database?.close();
});

test('resubmission on one instance and annulment on another never both win, and DGII never accepts both', { timeout: 120_000 }, async () => {
  const a = await newTenant(one.url);
  const headers = { 'x-api-key': a.apiKey };
  const range = await call(one.url, 'POST', '/TesteCF/secuencias', { json: { tipo: 31, desde: 'E310000000001', hasta: 'E310000000100', fechaVencimiento: toDgiiDate(addDays(dominicanToday(), 400)) }, headers });
  assert.equal(range.status, 201, range.text);
  // No certificate yet: every document ends in error.
  const docs: { id: string; encf: string }[] = [];
  for (let i = 0; i < DOCUMENTS; i++) {
    const res = await call(one.url, 'POST', '/TesteCF/documentos-ecf', { json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined, FechaVencimientoSecuencia: undefined }, Emisor: { RNCEmisor: a.rnc } } }), headers });
    assert.equal(res.status, 202, res.text);
    docs.push({ id: res.body.data.internalTrackId as string, encf: res.body.data.encf as string });
  }
  for (const d of docs) await waitForEstado(one.url, 'TesteCF', d.id, headers, ['error'], 60_000);
  assert.equal((await uploadCertificate(one.url, a.accessToken, makeTestCertificate(a.rnc))).status, 201);

  const annulments: string[] = [];
  for (const d of docs) {
    const [r, an] = await Promise.all([
      call(one.url, 'POST', `/TesteCF/documentos-ecf/${d.id}/reenviar`, { headers }),
      call(two.url, 'POST', '/TesteCF/anulaciones', { json: { tipo: 31, desde: d.encf, hasta: d.encf }, headers }),
    ]);
    assert.deepEqual([r.status, an.status].sort(), [202, 409], `${d.encf}: reenviar ${r.status} ${r.text.slice(0, 160)} / anulación ${an.status} ${an.text.slice(0, 160)}`);
    if (an.status === 202) annulments.push(an.body.data.id as string);
  }

  const annulled = new Set<string>();
  for (const id of annulments) {
    const decided = await waitFor(async () => {
      const got = (await call(two.url, 'GET', `/TesteCF/anulaciones/${id}`, { headers })).body.data;
      return got.estado !== 'recibido' ? got : undefined;
    }, 60_000, 'the annulment decided');
    if (decided.estado === 'aceptado') annulled.add(decided.desde as string);
  }
  for (const d of docs) {
    const doc = await waitForEstado(one.url, 'TesteCF', d.id, headers, FINAL, 60_000);
    const accepted = doc.estado === 'aceptado' || doc.estado === 'aceptado_condicional';
    assert.ok(!(accepted && annulled.has(d.encf)), `${d.encf} is both ${doc.estado} and annulled`);
  }
});
