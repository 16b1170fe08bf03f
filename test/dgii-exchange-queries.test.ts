import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runSimulatorFromArgs, SimulatorArgsError } from '../src/dgii/simulator/index.ts';
import { createLogger } from '../src/log.ts';
import { CertificateFactory, EMISOR_SUBJECT, signedEcf, startSimulator, type RunningSimulator } from './helpers/dgii-protocol.ts';
import { waitFor } from './helpers/wait.ts';
import { CachedDirectory } from '../src/dgii/directory.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';

// DGII's directory, Consulta Estado and the timbre page through the real client against the
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
  assert.deepEqual(await client.directory(1, 'CerteCF', BUYER.rnc, signal), [BUYER]);
  assert.deepEqual(await client.directory(1, 'eCF', BUYER.rnc, signal), [BUYER]);
  assert.deepEqual(await client.directory(1, 'TesteCF', '109999999', signal), []);
});

test('directory answers are cached for the configured time, absence included', async () => {
  const client = sim.client({ 1: emisor });
  const before = sim.simulator.counters().directoryQueries;
  const cached = new CachedDirectory(client, 60_000);
  assert.deepEqual(await cached.lookup(1, 'TesteCF', BUYER.rnc, signal), BUYER);
  assert.deepEqual(await cached.lookup(1, 'TesteCF', BUYER.rnc, signal), BUYER);
  assert.equal(await cached.lookup(1, 'TesteCF', '108888888', signal), null);
  assert.equal(await cached.lookup(1, 'TesteCF', '108888888', signal), null);
  assert.equal(sim.simulator.counters().directoryQueries - before, 2);
  const uncached = new CachedDirectory(client, 0);
  await uncached.lookup(1, 'TesteCF', BUYER.rnc, signal);
  await uncached.lookup(1, 'TesteCF', BUYER.rnc, signal);
  assert.equal(sim.simulator.counters().directoryQueries - before, 4);
});

test('Consulta Estado and the timbre page find an e-CF by RNC and eNCF once DGII holds it', async () => {
  const client = sim.client({ 1: emisor });
  const doc = signedEcf(emisor);
  const unknown = await client.ecfStatus(1, 'TesteCF', { rncEmisor: doc.rncEmisor, encf: doc.encf, rncComprador: BUYER.rnc, codigoSeguridad: 'abc123' }, signal);
  assert.deepEqual([unknown.codigo, unknown.estado], [0, 'No encontrado']);
  const timbreBefore = await client.timbre('TesteCF', false, `?RncEmisor=${doc.rncEmisor}&ENCF=${doc.encf}`, signal);
  assert.equal(timbreBefore.estado, 'No encontrado');
  await client.sendEcf(1, 'TesteCF', { fileName: `${doc.rncEmisor}${doc.encf}.xml`, xml: doc.xml }, signal);
  const known = await waitFor(async () => {
    const s = await client.ecfStatus(1, 'TesteCF', { rncEmisor: doc.rncEmisor, encf: doc.encf }, signal);
    return s.codigo !== 3 ? s : undefined;
  }, 10_000, 'the verdict');
  assert.deepEqual([known.codigo, known.estado, known.ncfElectronico], [1, 'Aceptado', doc.encf]);
  assert.equal((await client.timbre('TesteCF', false, `RncEmisor=${doc.rncEmisor}&ENCF=${doc.encf}`, signal)).estado, 'Aceptado');
});

test('the standalone simulator takes directory entries by flag and refuses malformed ones', async () => {
  const running = await runSimulatorFromArgs(['--port', '0', '--directory', '101010101=http://127.0.0.1:9/r'], createLogger('silent'));
  try {
    const client = sim.client({ 1: emisor }, { baseUrls: running.simulator.baseUrls(running.url) });
    const [entry] = await client.directory(1, 'TesteCF', '101010101', signal);
    assert.equal(entry?.urlRecepcion, 'http://127.0.0.1:9/r');
  } finally {
    await running.simulator.close();
  }
  await assert.rejects(runSimulatorFromArgs(['--directory', 'nope'], createLogger('silent')), SimulatorArgsError);
});
