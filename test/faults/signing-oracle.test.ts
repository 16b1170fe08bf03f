import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { sampleEcf } from '../fixtures/ecf.ts';
import { newTenantWithCertificate } from '../helpers/certificates.ts';
import { call } from '../helpers/http.ts';
import { hostileSeeds } from '../helpers/hostile-seeds.ts';
import { waitFor } from '../helpers/wait.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';
import { startSharedSimulator, type SharedSimulator } from './helpers/simulator.ts';
import { randomRnc } from '../helpers/tax-ids.ts';

// The signing oracle, against a real service process: buyers listed in DGII's directory whose
// receivers answer the seed request with a document of their choosing (an unsigned e-CF in the
// tenant's name, an ACECF, an ANECF, a seed carrying more). Each delivery must end in
// receptor.estado = error with the reason, and nothing the tenant's key signed may reach them.

const CASES = ['an unsigned ECF', 'an unsigned ACECF', 'an unsigned ANECF', 'a seed with an extra element', 'a seed with an attribute'];

let database: TestDatabase;
let sim: SharedSimulator;
let service: Instance;
let hostile: Server;
let hostileUrl = '';
/** buyer RNC → what its receiver answers as the seed */
const seeds = new Map<string, string>();
/** Every request other than the seed: what the receivers were handed. */
const received: { url: string; body: string }[] = [];

before(async () => {
  database = await faultDatabase();
  sim = await startSharedSimulator(100);
  hostile = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const rnc = /^\/buyer\/(\d+)\//.exec(url)?.[1] ?? '';
      if (req.method === 'GET' && url.endsWith('/semilla')) return res.writeHead(200, { 'content-type': 'application/xml' }).end(seeds.get(rnc) ?? '');
      received.push({ url, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: 'tok', expira: '', expedido: '' }));
    });
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as { port: number }).port}`;
  service = await startInstance(await faultEnv(database.url, { ...sim.env, EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true', EXCHANGE_MAX_ATTEMPTS: '2', EXCHANGE_RETRY_BASE_MS: '20', EXCHANGE_RETRY_MAX_MS: '50' }));
});

after(async () => {
  await stopAllInstances();
  hostile?.closeAllConnections();
  await new Promise((resolve) => (hostile === undefined ? resolve(undefined) : hostile.close(resolve)));
  await sim?.close();
  await database?.close();
});

test('buyers whose receivers answer the seed request with e-CF, ACECF, ANECF or a dressed-up seed get nothing signed; each leg ends in error with the reason', async () => {
  const tenant = await newTenantWithCertificate(service.url);
  const headers = { 'x-api-key': tenant.apiKey };
  const ids = new Map<string, string>();
  for (const name of CASES) {
    const rnc = randomRnc();
    const seed = hostileSeeds(tenant.rnc)[name];
    assert.ok(seed !== undefined);
    seeds.set(rnc, seed);
    const base = `${hostileUrl}/buyer/${rnc}`;
    sim.simulator.listInDirectory({ nombre: `Comprador ${name}`, rnc, urlRecepcion: base, urlAceptacion: base, urlOpcional: base });
    const res = await call(service.url, 'POST', '/TesteCF/documentos-ecf', {
      json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: tenant.rnc }, Comprador: { RNCComprador: rnc } } }),
      headers,
    });
    assert.equal(res.status, 202, res.text);
    ids.set(name, res.body.data.internalTrackId as string);
  }
  for (const [name, id] of ids) {
    const d = await waitFor(async () => {
      const doc = (await call(service.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers })).body.data;
      return doc.receptor.estado !== 'pendiente' ? doc : undefined;
    }, 60_000, `the buyer leg answering ${name}`);
    assert.equal(d.estado, 'aceptado', name);
    assert.equal(d.receptor.estado, 'error', `${name}: ${JSON.stringify(d.receptor)}`);
    assert.match(d.receptor.detalle, /not DGII's seed document .*nothing was signed/, name);
  }
  assert.deepEqual(received, [], 'the hostile receivers were handed nothing: no signed seed, no e-CF');
  assert.equal((await call(service.url, 'GET', '/healthz')).status, 200);
});
