import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runSimulatorFromArgs, SimulatorArgsError } from '../src/dgii/simulator/index.ts';
import { createLogger } from '../src/log.ts';
import { CertificateFactory, EMISOR_SUBJECT, signedEcf, startSimulator, type RunningSimulator } from './helpers/dgii-protocol.ts';
import { waitFor } from './helpers/wait.ts';
import { CachedDirectory } from '../src/dgii/directory.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { PermanentAuthorityError, UnpublishedServiceError } from '../src/dgii/authority.ts';
import { securityCodeOf } from '../src/ecf/xml/index.ts';

// DGII's directory, Consulta Estado (which needs the e-CF's security code) and the timbre page through the real client against the
// simulator; the directory cache; the standalone simulator's directory flags.

let sim: RunningSimulator;
let certs: CertificateFactory;
let emisor: DgiiCredentials;
const signal = new AbortController().signal;
const BUYER = { nombre: 'Comprador SRL', rnc: '101672919', urlRecepcion: 'https://buyer.example/fe-base', urlAceptacion: 'https://buyer.example/fe-base', urlOpcional: 'https://buyer.example/fe-base' };

before(async () => {
  sim = await startSimulator({ processingMs: 0 });
  certs = new CertificateFactory();
  emisor = certs.make(EMISOR_SUBJECT);
  sim.simulator.listInDirectory(BUYER);
});
after(async () => {
  await sim.simulator.close();
  certs.remove();
});

test('the directory answers a listing, one RNC (a single object in eCF), and nothing for an unlisted RNC', async () => {
  const client = sim.client({ 1: emisor });
  assert.deepEqual(await client.directory(1, 'TesteCF', null, signal), [BUYER]);
  assert.deepEqual(await client.directory(1, 'eCF', BUYER.rnc, signal), [BUYER]);
  assert.deepEqual(await client.directory(1, 'TesteCF', '109999995', signal), []);
});

test('directory answers are cached for the configured time, absence included', async () => {
  const client = sim.client({ 1: emisor });
  const before = sim.simulator.counters().directoryQueries;
  const cached = new CachedDirectory(client, 60_000);
  assert.deepEqual(await cached.lookup(1, 'TesteCF', BUYER.rnc, signal), BUYER);
  assert.deepEqual(await cached.lookup(1, 'TesteCF', BUYER.rnc, signal), BUYER);
  assert.equal(await cached.lookup(1, 'TesteCF', '108888882', signal), null);
  assert.equal(await cached.lookup(1, 'TesteCF', '108888882', signal), null);
  assert.equal(sim.simulator.counters().directoryQueries - before, 2);
  const uncached = new CachedDirectory(client, 0);
  await uncached.lookup(1, 'TesteCF', BUYER.rnc, signal);
  await uncached.lookup(1, 'TesteCF', BUYER.rnc, signal);
  assert.equal(sim.simulator.counters().directoryQueries - before, 4);
});

test('a directory lookup of a number with a wrong check digit finds nobody without asking DGII', async () => {
  const client = sim.client({ 1: emisor });
  const before = sim.simulator.counters().directoryQueries;
  const cached = new CachedDirectory(client, 0);
  assert.equal(await cached.lookup(1, 'TesteCF', '108888881', signal), null);
  assert.equal(await cached.lookup(1, 'TesteCF', '000000000', signal), null);
  assert.equal(sim.simulator.counters().directoryQueries - before, 0);
});

test('CerteCF publishes no directory, Consulta Estado, Consulta TrackIds or Anulación Rangos: the client sends nothing and the simulator answers 404', async () => {
  const client = sim.client({ 1: emisor });
  const before = sim.simulator.counters();
  const unpublished = (err: unknown) => err instanceof UnpublishedServiceError && /in CerteCF/.test(err.message);
  await assert.rejects(client.directory(1, 'CerteCF', BUYER.rnc, signal), unpublished);
  await assert.rejects(client.directory(1, 'CerteCF', null, signal), unpublished);
  await assert.rejects(client.trackIds(1, 'CerteCF', '131880681', 'E310000000001', signal), unpublished);
  await assert.rejects(client.ecfStatus(1, 'CerteCF', { rncEmisor: '131880681', encf: 'E310000000001', rncComprador: null, codigoSeguridad: 'ABC123' }, signal), unpublished);
  await assert.rejects(client.sendAnnulment(1, 'CerteCF', { fileName: '131880681ANECFE310000000001.xml', xml: '<ANECF/>' }, signal), unpublished);
  assert.equal(await new CachedDirectory(client, 0).lookup(1, 'CerteCF', BUYER.rnc, signal), null, 'nobody is listed where no directory is published');
  assert.equal(sim.simulator.counters().directoryQueries, before.directoryQueries);
  // DGII's own hosts have no such URLs there; the same paths exist in TesteCF (a 401 without a token).
  for (const path of ['/consultadirectorio/api/consultas/listado', '/consultaestado/api/consultas/estado', '/consultatrackids/api/trackids/consulta']) {
    assert.equal((await fetch(`${sim.url}/certecf${path}`)).status, 404, path);
    assert.equal((await fetch(`${sim.url}/testecf${path}`)).status, 401, path);
  }
  assert.equal((await fetch(`${sim.url}/CerteCF/AnulacionRangos/api/operaciones/anularrango`, { method: 'POST' })).status, 404);
  // What CerteCF does publish is still served there.
  assert.deepEqual(await client.directory(1, 'TesteCF', BUYER.rnc, signal), [BUYER]);
  assert.equal((await fetch(`${sim.url}/certecf/recepcion/api/facturaselectronicas`, { method: 'POST' })).status, 401);
});

test('Consulta Estado and the timbre page find an e-CF by RNC, eNCF and its security code once DGII holds it', async () => {
  const client = sim.client({ 1: emisor });
  const doc = signedEcf(emisor);
  const code = securityCodeOf(doc.xml);
  const query = { rncEmisor: doc.rncEmisor, encf: doc.encf, rncComprador: BUYER.rnc, codigoSeguridad: code };
  const unknown = await client.ecfStatus(1, 'TesteCF', query, signal);
  assert.deepEqual([unknown.codigo, unknown.estado], [0, 'No encontrado']);
  const timbreBefore = await client.timbre('TesteCF', false, `?RncEmisor=${doc.rncEmisor}&ENCF=${doc.encf}`, signal);
  assert.equal(timbreBefore.estado, 'No encontrado');
  await client.sendEcf(1, 'TesteCF', { fileName: `${doc.rncEmisor}${doc.encf}.xml`, xml: doc.xml }, signal);
  const known = await waitFor(async () => {
    const s = await client.ecfStatus(1, 'TesteCF', query, signal);
    return s.codigo !== 3 ? s : undefined;
  }, 10_000, 'the verdict');
  assert.deepEqual([known.codigo, known.estado, known.ncfElectronico, known.codigoSeguridad], [1, 'Aceptado', doc.encf, code]);
  assert.equal((await client.timbre('TesteCF', false, `RncEmisor=${doc.rncEmisor}&ENCF=${doc.encf}`, signal)).estado, 'Aceptado');
});

test('Consulta Estado with a wrong security code answers No encontrado for an e-CF DGII holds, and requires the code', async () => {
  const client = sim.client({ 1: emisor });
  const doc = signedEcf(emisor);
  const code = securityCodeOf(doc.xml);
  await client.sendEcf(1, 'TesteCF', { fileName: `${doc.rncEmisor}${doc.encf}.xml`, xml: doc.xml }, signal);
  const query = { rncEmisor: doc.rncEmisor, encf: doc.encf };
  const right = await waitFor(async () => {
    const s = await client.ecfStatus(1, 'TesteCF', { ...query, codigoSeguridad: code }, signal);
    return s.codigo !== 3 ? s : undefined;
  }, 10_000, 'the verdict');
  assert.equal(right.estado, 'Aceptado');
  const wrongCode = code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
  const wrong = await client.ecfStatus(1, 'TesteCF', { ...query, codigoSeguridad: wrongCode }, signal);
  assert.deepEqual([wrong.codigo, wrong.estado], [0, 'No encontrado'], 'the eNCF alone reveals nothing');
  await assert.rejects(client.ecfStatus(1, 'TesteCF', query, signal), (err: Error) => err instanceof PermanentAuthorityError && /codigoSeguridad son requeridos/.test(err.message));
  // The timbre link carries the code as well: a wrong one finds nothing there either.
  assert.equal((await client.timbre('TesteCF', false, `RncEmisor=${doc.rncEmisor}&ENCF=${doc.encf}&CodigoSeguridad=${wrongCode}`, signal)).estado, 'No encontrado');
  assert.equal((await client.timbre('TesteCF', false, `RncEmisor=${doc.rncEmisor}&ENCF=${doc.encf}&CodigoSeguridad=${encodeURIComponent(code)}`, signal)).estado, 'Aceptado');
});

test('the standalone simulator takes directory entries by flag and refuses malformed ones', async () => {
  const running = await runSimulatorFromArgs(['--port', '0', '--directory', '101010101=http://127.0.0.1:9/r', '--directory-without-auth', '101010118=http://127.0.0.1:9/s'], createLogger('silent'));
  try {
    const client = sim.client({ 1: emisor }, { baseUrls: running.simulator.baseUrls(running.url) });
    const [entry] = await client.directory(1, 'TesteCF', '101010101', signal);
    assert.equal(entry?.urlRecepcion, 'http://127.0.0.1:9/r');
    assert.equal(entry?.urlOpcional, 'http://127.0.0.1:9/r');
    // A receiver without the optional authentication: DGII's answer has an empty urlOpcional.
    const raw = await fetch(`${running.url}/testecf/consultadirectorio/api/consultas/listado?rnc=101010118`, { headers: { authorization: `Bearer ${await client.token(1, 'TesteCF', signal)}` } });
    assert.deepEqual(((await raw.json()) as { urlOpcional: string }[]).map((e) => e.urlOpcional), ['']);
    const [bare] = await client.directory(1, 'TesteCF', '101010118', signal);
    assert.deepEqual([bare?.urlRecepcion, bare?.urlOpcional], ['http://127.0.0.1:9/s', null]);
  } finally {
    await running.simulator.close();
  }
  await assert.rejects(runSimulatorFromArgs(['--directory', 'nope'], createLogger('silent')), SimulatorArgsError);
  await assert.rejects(runSimulatorFromArgs(['--directory-without-auth', '1=x'], createLogger('silent')), (err: unknown) => err instanceof SimulatorArgsError && /--directory-without-auth must be RNC=URL/.test(err.message));
});
