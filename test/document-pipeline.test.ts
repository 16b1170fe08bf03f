import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DgiiSimulator } from '../src/dgii/simulator/index.ts';
import { latestOwn } from '../src/documents/lost-answers.ts';
import { findDocumentById } from '../src/documents/queries.ts';
import { clearSignature, storeSignatures } from '../src/documents/signature-queries.ts';
import { ensureSigned } from '../src/documents/signing.ts';
import { call, newTenant } from './helpers/http.ts';
import { makeTestCertificate, newTenantWithCertificate, uploadCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';
import { randomRnc } from './helpers/tax-ids.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

// The pipeline's failure paths, driven through the real DGII client against the in-process
// simulator, whose faults (an HTTP status, a delay) the tests inject before each document.
// Tests in this file run one after another, so a fault meets the one document in flight.

let t: TestService;
let simulator: DgiiSimulator;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, DGII_SUBMIT_MAX_ATTEMPTS: '4', DGII_TIMEOUT_MS: '1000', DGII_NOT_FOUND_TIMEOUT_MS: '1500' }, captureLog: true });
  assert.ok(t.service.simulator !== null, 'TAX_AUTHORITY defaults to the in-process simulator');
  simulator = t.service.simulator;
});
after(() => t.close());

type Tenant = Awaited<ReturnType<typeof newTenant>>;

async function emit(a: Tenant, tipo: 31 | 32 = 31) {
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, tipo), headers: { 'x-api-key': a.apiKey } });
  assert.equal(res.status, 202, res.text);
  return { id: res.body.data.internalTrackId as string, headers: { 'x-api-key': a.apiKey } };
}

/** Submission retries logged so far (the job queue logs each failed attempt it will retry). */
const retriesLogged = (kind: string) => t.logLines.filter((l) => l.includes('job failed; will retry') && l.includes(`"kind":"${kind}"`));

const historyOf = (doc: { history: { estado: string }[] }) => doc.history.map((h) => h.estado);

describe('submission pipeline', () => {
  test('transient failures (5xx) are retried with backoff, then the document proceeds', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = retriesLogged('document.submit').length;
    simulator.injectFault({ service: 'recepcion', status: 503, times: 2 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    const retries = retriesLogged('document.submit').slice(before);
    assert.equal(retries.length, 2);
    for (const line of retries) assert.match(line, /DGII answered HTTP 503 while sending/);
    assert.deepEqual(historyOf(doc), ['recibido', 'en_proceso', 'aceptado']);
  });

  test('a timeout is retried like a network error', async () => {
    const a = await newTenantWithCertificate(t.url);
    simulator.injectFault({ service: 'recepcion', delayMs: 1500 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    assert.deepEqual(historyOf(doc), ['recibido', 'en_proceso', 'aceptado']);
  });

  test('after the retry budget the document becomes error with the last failure', async () => {
    const a = await newTenantWithCertificate(t.url);
    simulator.injectFault({ service: 'recepcion', status: 503, times: 4 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['error']);
    assert.match(doc.dgiiMessage, /^Could not be sent after 4 attempts: DGII answered HTTP 503 while sending \d+E31\d{10}\.xml: Fallo simulado/);
    assert.deepEqual(historyOf(doc), ['recibido', 'error']);
  });

  test('a refusal by DGII (4xx) makes the document error at once, with DGII\'s message', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = retriesLogged('document.submit').length;
    simulator.injectFault({ service: 'recepcion', status: 400 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['error']);
    assert.match(doc.dgiiMessage, /DGII answered HTTP 400 while sending .*Fallo simulado \(HTTP 400\)/);
    assert.equal(retriesLogged('document.submit').length, before, 'not retried');
  });

  test('without a certificate the document becomes error with a clear message, and has no XML', async () => {
    const a = await newTenant(t.url);
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['error']);
    assert.equal(doc.dgiiMessage, 'No valid certificate: upload one with POST /api/certificates');
    assert.deepEqual(historyOf(doc), ['recibido', 'error']);
    assert.deepEqual([doc.securityCode, doc.timbreUrl, doc.fechaHoraFirma], [null, null, null]);
    const xml = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}/xml`, { headers });
    assert.equal(xml.status, 404);
    assert.match(xml.body.error.message, /never signed/);
  });

  test('a failing status query is retried until the verdict', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = retriesLogged('document.poll').length;
    simulator.injectFault({ service: 'estado', status: 502, times: 2 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    assert.equal(retriesLogged('document.poll').length - before, 2);
    assert.deepEqual(historyOf(doc), ['recibido', 'en_proceso', 'aceptado']);
  });

  test('an RFCE verdict goes straight from recibido to the final state', async () => {
    const a = await newTenantWithCertificate(t.url);
    const { id, headers } = await emit(a, 32);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    assert.deepEqual(historyOf(doc), ['recibido', 'aceptado']);
    assert.equal(doc.trackId, null);
  });

  test('a signed document keeps its signature: later attempts get the stored bytes', async () => {
    const a = await newTenantWithCertificate(t.url);
    const { id, headers } = await emit(a);
    await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    const row = await findDocumentById(t.sql, id);
    assert.ok(row !== undefined && row.fechaHoraFirma !== null);
    const downloaded = await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}/xml`, { headers });
    const again = await ensureSigned(t.sql, async () => assert.fail('a signed document must not be signed again'), row, new Date(Date.now() + 3_600_000));
    assert.equal(again.signedXml, downloaded.text);
    assert.equal(again.rfceXml, null);
  });

  test('signatures stored together keep the first signature of a document someone else signed meanwhile', async () => {
    const a = await newTenantWithCertificate(t.url);
    const first = await emit(a);
    const second = await emit(a);
    await waitForEstado(t.url, 'TesteCF', first.id, first.headers, ['aceptado']);
    await waitForEstado(t.url, 'TesteCF', second.id, second.headers, ['aceptado']);
    const kept = await findDocumentById(t.sql, second.id);
    await clearSignature(t.sql, first.id);
    const signature = (n: string) => ({ signedXml: `<ECF>${n}</ECF>`, rfceXml: null, securityCode: n.slice(0, 6), timbreUrl: `https://timbre/${n}`, fechaHoraFirma: '01-01-2026 00:00:00' });
    const stored = await storeSignatures(t.sql, [{ id: first.id, signature: signature('nueva1') }, { id: second.id, signature: signature('nueva2') }]);
    assert.deepEqual(stored.get(first.id), { signedXml: '<ECF>nueva1</ECF>', rfceXml: null, securityCode: 'nueva1' });
    assert.ok(kept?.securityCode !== null && stored.get(second.id)?.securityCode === kept?.securityCode, 'the signature the document had is kept and answered');
    assert.notEqual(stored.get(second.id)?.signedXml, '<ECF>nueva2</ECF>');
    assert.equal((await findDocumentById(t.sql, first.id))?.timbreUrl, 'https://timbre/nueva1');

    // The same document twice in one batch: one of the two is stored, and that one is answered.
    await clearSignature(t.sql, first.id);
    const twice = await storeSignatures(t.sql, [{ id: first.id, signature: signature('doble1') }, { id: first.id, signature: signature('doble2') }]);
    const [row] = await t.sql<{ signedXml: string }[]>`select signed_xml from documents where id = ${first.id}`;
    assert.match(row?.signedXml ?? '', /doble[12]/);
    assert.equal(twice.get(first.id)?.signedXml, row?.signedXml);
  });

  // Consulta Estado answers what the simulator holds; to see the "still in process" branch
  // whatever the machine's speed, the one query of that test is answered En Proceso.
  const IN_PROCESS = { status: 200, body: { codigo: 3, estado: 'En Proceso' } };

  test('an upload whose answer is lost while DGII processes it is followed by its trackId instead of being sent twice', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    // The upload reaches the simulator, which records it and closes the connection unanswered.
    simulator.injectFault({ service: 'recepcion', dropAnswer: true });
    simulator.injectFault({ service: 'consultaEstado', answer: IN_PROCESS });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
    assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
    assert.deepEqual(historyOf(doc), ['recibido', 'en_proceso', 'aceptado']);
    const received = simulator.trackIdsOf('TesteCF', a.rnc, doc.encf);
    assert.deepEqual(received, [doc.trackId], 'the simulator received the document once, under the trackId the document carries');
    const now = simulator.counters();
    assert.equal(now.documentsReceived - before.documentsReceived, 1);
    assert.equal(now.trackIdQueries - before.trackIdQueries, 1, 'the retry asked for the trackId once');
    assert.ok(t.logLines.some((l) => l.includes('the authority already holds this document; following its submission') && l.includes(doc.trackId)));
  });

  test('an upload whose answer is lost after DGII decided takes DGII\'s verdict and reasons at once, by Consulta Estado', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    // The answer is held past the simulator's processing time, then lost: DGII has decided by the retry.
    simulator.injectFault({ service: 'recepcion', dropAnswer: true, holdAnswerMs: 400 });
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', {
      json: ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc, InformacionAdicionalEmisor: '[simulador:rechazar]' } } }),
      headers: { 'x-api-key': a.apiKey },
    });
    assert.equal(res.status, 202, res.text);
    const doc = await waitForEstado(t.url, 'TesteCF', res.body.data.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado', 'rechazado', 'error']);
    assert.equal(doc.estado, 'rechazado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
    assert.deepEqual(historyOf(doc), ['recibido', 'rechazado'], 'no status polling: the verdict was there');
    assert.deepEqual([doc.dgiiCode, doc.dgiiMessage], ['2', 'Rechazado por solicitud de prueba'], 'DGII\'s reasons, from the status of the submission it lists');
    assert.deepEqual(simulator.trackIdsOf('TesteCF', a.rnc, doc.encf), [doc.trackId]);
    const now = simulator.counters();
    assert.equal(now.documentsReceived - before.documentsReceived, 1, 'not sent twice');
    assert.equal(now.ecfStatusQueries - before.ecfStatusQueries, 1);
    assert.ok(t.logLines.some((l) => l.includes('the authority already holds this document and decided on it') && l.includes(doc.trackId)));
  });

  test('a failing Consulta Estado is retried, and the document is still sent once', async () => {
    const a = await newTenantWithCertificate(t.url);
    const retries = retriesLogged('document.submit').length;
    simulator.injectFault({ service: 'recepcion', dropAnswer: true });
    simulator.injectFault({ service: 'consultaEstado', status: 503 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
    assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
    assert.deepEqual(simulator.trackIdsOf('TesteCF', a.rnc, doc.encf), [doc.trackId]);
    const logged = retriesLogged('document.submit').slice(retries);
    assert.equal(logged.length, 2, 'the lost answer, then the failed query');
    assert.match(logged[1] ?? '', /DGII answered HTTP 503 while querying the status of E31/);
  });

  test('when DGII refuses Consulta Estado, Consulta TrackIds alone finds the lost upload', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    simulator.injectFault({ service: 'recepcion', dropAnswer: true });
    simulator.injectFault({ service: 'consultaEstado', status: 400 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
    assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
    assert.deepEqual(historyOf(doc), ['recibido', 'en_proceso', 'aceptado']);
    assert.deepEqual(simulator.trackIdsOf('TesteCF', a.rnc, doc.encf), [doc.trackId]);
    assert.equal(simulator.counters().trackIdQueries - before.trackIdQueries, 1);
    assert.ok(t.logLines.some((l) => l.includes('the authority refused Consulta Estado') && l.includes(id)));
  });

  test('a retry after a failure that sent nothing asks, finds nothing, and sends', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    simulator.injectFault({ service: 'recepcion', status: 503 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    assert.deepEqual(simulator.trackIdsOf('TesteCF', a.rnc, doc.encf), [doc.trackId]);
    const now = simulator.counters();
    assert.equal(now.ecfStatusQueries - before.ecfStatusQueries, 1);
    assert.equal(now.trackIdQueries - before.trackIdQueries, 0, 'DGII knows nothing of the eNCF: no trackId to look for');
    assert.equal(now.documentsReceived - before.documentsReceived, 1);
  });

  test('a first attempt does not ask for earlier submissions', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    const { id, headers } = await emit(a);
    await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    const now = simulator.counters();
    assert.equal(now.ecfStatusQueries, before.ecfStatusQueries);
    assert.equal(now.trackIdQueries, before.trackIdQueries);
    assert.equal(now.documentsReceived - before.documentsReceived, 1);
  });

  test('an RFCE whose answer is lost is not sent again: Consulta RFCE gives the verdict DGII reached', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    simulator.injectFault({ service: 'rfce', dropAnswer: true });
    const { id, headers } = await emit(a, 32);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
    assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
    assert.deepEqual(historyOf(doc), ['recibido', 'aceptado']);
    assert.deepEqual([doc.dgiiCode, doc.dgiiMessage, doc.trackId], ['0', 'Aceptado', null]);
    const now = simulator.counters();
    assert.equal(now.summariesReceived - before.summariesReceived, 1, 'DGII saw exactly one RFCE');
    assert.equal(now.summaryQueries - before.summaryQueries, 1, 'the retry asked once');
    assert.ok(t.logLines.some((l) => l.includes('the authority already decided on this summary') && l.includes(id)));
  });

  test('a retry of an RFCE that never reached DGII asks, finds nothing, and sends it once', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    simulator.injectFault({ service: 'rfce', status: 503 });
    const { id, headers } = await emit(a, 32);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
    assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
    const now = simulator.counters();
    assert.equal(now.summaryQueries - before.summaryQueries, 1);
    assert.equal(now.summariesReceived - before.summariesReceived, 1);
  });

  test('replacing a certificate of another holder takes effect at once: the next document gets a token of the new one', async () => {
    const a = await newTenant(t.url);
    assert.equal((await uploadCertificate(t.url, a.accessToken, makeTestCertificate('101672919'))).status, 201);
    const first = await emit(a);
    const refused = await waitForEstado(t.url, 'TesteCF', first.id, first.headers, ['aceptado', 'rechazado', 'error']);
    assert.equal(refused.estado, 'error');
    assert.match(refused.dgiiMessage, new RegExp(`El RNCEmisor ${a.rnc} del documento no corresponde al RNC 101672919 del token`));

    assert.equal((await uploadCertificate(t.url, a.accessToken, makeTestCertificate(a.rnc))).status, 201);
    const second = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', second.id, second.headers, ['aceptado', 'rechazado', 'error']);
    assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
  });

  test('an acceptance DGII sends without messages is stored with code 0 and "Aceptado"', async () => {
    const a = await newTenantWithCertificate(t.url);
    simulator.injectFault({ service: 'estado', answer: { status: 200, body: { trackId: 'x', codigo: 1, estado: 'Aceptado', mensajes: [] } } });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
    assert.deepEqual([doc.estado, doc.dgiiCode, doc.dgiiMessage], ['aceptado', '0', 'Aceptado']);
  });

  const NOT_FOUND = { status: 200, body: { trackId: 'x', codigo: 0, estado: 'No encontrado', mensajes: [{ valor: 'No se encontró el trackId', codigo: 0 }] } };

  test('a trackId DGII keeps not finding, of an e-CF it does not know either, makes the document error with DGII\'s message after DGII_NOT_FOUND_TIMEOUT_MS', async () => {
    const a = await newTenantWithCertificate(t.url);
    simulator.injectFault({ service: 'estado', answer: NOT_FOUND, times: 10_000 });
    simulator.injectFault({ service: 'consultaEstado', answer: { status: 200, body: { codigo: 0, estado: 'No encontrado' } }, times: 10_000 });
    try {
      const { id, headers } = await emit(a);
      const startedAt = Date.now();
      const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
      assert.equal(doc.estado, 'error');
      assert.ok(Date.now() - startedAt >= 1500, 'not before the window is over');
      assert.equal(doc.dgiiCode, '0');
      assert.match(doc.dgiiMessage, new RegExp(`^DGII does not find trackId ${doc.trackId} \\(answered "No encontrado" for \\d+ s\\): No se encontró el trackId$`));
      assert.deepEqual(historyOf(doc), ['recibido', 'en_proceso', 'error']);
    } finally {
      simulator.clearFaults();
    }
  });

  test('a trackId DGII keeps not finding, of an e-CF it decided on, takes the verdict Consulta Estado reports', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    simulator.injectFault({ service: 'estado', answer: NOT_FOUND, times: 10_000 });
    try {
      const { id, headers } = await emit(a);
      const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
      assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
      assert.deepEqual(historyOf(doc), ['recibido', 'en_proceso', 'aceptado']);
      // The trackId's status is still "No encontrado": Consulta Estado's own words are kept.
      assert.deepEqual([doc.dgiiCode, doc.dgiiMessage], ['0', 'Aceptado']);
      assert.deepEqual(simulator.trackIdsOf('TesteCF', a.rnc, doc.encf), [doc.trackId]);
      assert.equal(simulator.counters().ecfStatusQueries - before.ecfStatusQueries, 1);
      assert.ok(t.logLines.some((l) => l.includes('DGII does not find the trackId but knows the e-CF') && l.includes(id)));
    } finally {
      simulator.clearFaults();
    }
  });

  test('a trackId DGII keeps not finding, of an e-CF it is still processing, is followed until DGII decides', async () => {
    const a = await newTenantWithCertificate(t.url);
    const before = simulator.counters();
    simulator.injectFault({ service: 'estado', answer: NOT_FOUND, times: 10_000 });
    simulator.injectFault({ service: 'consultaEstado', answer: IN_PROCESS });
    try {
      const { id, headers } = await emit(a);
      const startedAt = Date.now();
      const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
      assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
      assert.ok(Date.now() - startedAt >= 3000, 'the "No encontrado" window was waited out twice: before and after DGII said En Proceso');
      assert.equal(simulator.counters().ecfStatusQueries - before.ecfStatusQueries, 1, 'the En Proceso answer was the fault\'s; the second query counted');
      assert.ok(t.logLines.some((l) => l.includes('is processing the e-CF; following its submission') && l.includes(id)));
    } finally {
      simulator.clearFaults();
    }
  });

  test('a trackId not found for a moment is followed to its verdict', async () => {
    const a = await newTenantWithCertificate(t.url);
    simulator.injectFault({ service: 'estado', answer: NOT_FOUND, times: 2 });
    const { id, headers } = await emit(a);
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'rechazado', 'error']);
    assert.equal(doc.estado, 'aceptado', `${doc.estado} ${doc.dgiiCode} ${doc.dgiiMessage}`);
  });

  test('a buyer the directory already knows is no electronic receiver has its leg settled with the verdict: no delivery job runs', async () => {
    const a = await newTenantWithCertificate(t.url);
    // Every exchange.deliver job made is written down, whatever becomes of it.
    await t.sql.unsafe('create table test_deliver_jobs (document_id text)');
    await t.sql.unsafe(`create function test_note_deliver_job() returns trigger language plpgsql as $$
      begin insert into test_deliver_jobs values (new.payload ->> 'documentId'); return new; end $$`);
    await t.sql.unsafe(`create trigger test_note_deliver_job after insert on jobs for each row when (new.kind = 'exchange.deliver') execute function test_note_deliver_job()`);
    try {
      const receptorOf = async (id: string, headers: Record<string, string>) => waitFor(async () => {
        const d = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers })).body.data;
        return d.receptor.estado === 'pendiente' ? undefined : d;
      }, 20_000, 'the buyer leg settled');
      // A buyer no document of this process was addressed to yet.
      const buyer = randomRnc();
      const toBuyer = async () => {
        const body = ecfFor(a.rnc, 31) as { ECF: { Encabezado: { Comprador: { RNCComprador: string } } } };
        body.ECF.Encabezado.Comprador.RNCComprador = buyer;
        const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers: { 'x-api-key': a.apiKey } });
        assert.equal(res.status, 202, res.text);
        return { id: res.body.data.internalTrackId as string, headers: { 'x-api-key': a.apiKey } };
      };
      // The first document to this buyer asks DGII's directory, in its job.
      const first = await toBuyer();
      assert.equal((await receptorOf(first.id, first.headers)).receptor.estado, 'no_aplica');
      // The next one is settled with its verdict, from the directory's answer the first got.
      const second = await toBuyer();
      const doc = await receptorOf(second.id, second.headers);
      assert.equal(doc.receptor.estado, 'no_aplica');
      assert.match(doc.receptor.detalle, new RegExp(`does not list ${buyer} as an electronic receiver`));
      const noted = (await t.sql<{ documentId: string }[]>`select document_id from test_deliver_jobs`).map((r) => r.documentId);
      assert.ok(noted.includes(first.id), 'the first document\'s leg ran as a job');
      assert.ok(!noted.includes(second.id), 'the second document\'s leg made no job');
      // The verdict's event and the leg's, numbered one after the other, were stored by one transaction.
      const events = await t.sql<{ kind: string; sequence: number; createdAt: Date }[]>`
        select kind, sequence, created_at from events where body::jsonb ->> 'internalTrackId' = ${second.id} and sequence >= 3 order by sequence`;
      assert.deepEqual(events.map((e) => [e.kind, e.sequence]), [['ecf.status_update', 3], ['ecf.receptor_update', 4]]);
      assert.equal(events[0]?.createdAt.getTime(), events[1]?.createdAt.getTime(), 'the leg was recorded in the verdict\'s transaction');
      const leg = await t.sql<{ body: string }[]>`select body from events where body::jsonb ->> 'internalTrackId' = ${second.id} and kind = 'ecf.receptor_update'`;
      assert.equal((JSON.parse(leg[0]?.body ?? '{}') as { receptor: { updatedAt: string } }).receptor.updatedAt, doc.receptor.updatedAt, 'the event says what the document keeps');
    } finally {
      await t.sql.unsafe('drop trigger test_note_deliver_job on jobs');
      await t.sql.unsafe('drop function test_note_deliver_job()');
      await t.sql.unsafe('drop table test_deliver_jobs');
    }
  });

  test('no job is left behind once documents are final', async () => {
    const [row] = await t.sql`select count(*)::int as n from jobs where kind like 'document.%'`;
    assert.equal(row?.n, 0);
  });
});

test('latestOwn adopts the latest submission, never one received well before the document was signed', () => {
  const signedAt = new Date('2025-03-15T14:00:00Z');
  const at = (iso: string | null) => (iso === null ? null : new Date(iso));
  const s = (trackId: string, receivedAt: string | null) => ({ trackId, receivedAt: at(receivedAt), estado: null });
  assert.equal(latestOwn([], signedAt), null);
  assert.equal(latestOwn([s('a', '2025-03-15T14:00:01Z'), s('b', '2025-03-15T14:00:02Z')], signedAt)?.trackId, 'b');
  assert.equal(latestOwn([s('a', '2025-03-15T13:55:00Z')], signedAt)?.trackId, 'a', 'within the clock skew allowed');
  assert.equal(latestOwn([s('old', '2025-03-14T09:00:00Z')], signedAt), null, 'another document under the same eNCF');
  assert.equal(latestOwn([s('ours', '2025-03-15T14:00:01Z'), s('old', '2025-03-14T09:00:00Z')], signedAt)?.trackId, 'ours');
  assert.equal(latestOwn([s('undated', null)], signedAt)?.trackId, 'undated', 'no date: nothing tells it apart');
});

test('a document without a verdict before the poll timeout becomes error', async () => {
  const slow = await startTestService({ env: { ...FAST_PIPELINE, SIMULATOR_PROCESSING_MS: '60000', DGII_POLL_TIMEOUT_MS: '1000' } });
  try {
    const a = await newTenantWithCertificate(slow.url);
    const res = await call(slow.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    const doc = await waitForEstado(slow.url, 'TesteCF', res.body.data.internalTrackId, { 'x-api-key': a.apiKey }, ['error']);
    assert.match(doc.dgiiMessage, /No verdict from the tax authority/);
    assert.deepEqual(historyOf(doc), ['recibido', 'en_proceso', 'error']);
  } finally {
    await slow.close();
  }
});

test('the maintenance job is scheduled once however many instances start', async () => {
  const db: TestDatabase = await createTestDatabase();
  const instances = [];
  try {
    for (let i = 0; i < 3; i++) instances.push(await startTestService({ database: db }));
    const [row] = await db.db.sql`select count(*)::int as n from jobs where kind = 'maintenance.purge'`;
    assert.equal(row?.n, 1);
  } finally {
    for (const s of instances) await s.close();
    await db.close();
  }
});
