import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { randomRnc } from './helpers/tax-ids.ts';
import { sampleEcf } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { call, type Loose } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';
import { buildArecfXml } from '../src/ecf/xml/index.ts';
import { seedModelXml } from '../src/ecf/xml/seed.ts';
import { signXml, parseXml, textAt } from '../src/xml/index.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';

// A buyer's receiver that misbehaves: it hangs, answers garbage, or answers an ARECF that is not
// validly signed by the buyer. Each leaves receptor.estado = error with the reason, the document
// stays aceptado; and a directory URL into a private network is refused by the egress guard.

type Mode = 'hang' | 'garbage' | 'tampered' | 'wrongSigner';

let t: TestService;
let guarded: TestService;
let buyerServer: Server;
let buyerUrl = '';
let certs: CertificateFactory;
const modes = new Map<string, { mode: Mode; credentials: DgiiCredentials }>();
let stranger: DgiiCredentials;

function arecfFor(ecfXml: string, credentials: DgiiCredentials): string {
  const root = parseXml(ecfXml).root;
  const at = (...path: string[]) => textAt(root, path) ?? '';
  return signXml(buildArecfXml({
    rncEmisor: at('Encabezado', 'Emisor', 'RNCEmisor'), rncComprador: at('Encabezado', 'Comprador', 'RNCComprador'), encf: at('Encabezado', 'IdDoc', 'eNCF'), estado: 0, fechaHoraAcuseRecibo: new Date(),
  }), credentials.privateKey, credentials.certificate);
}

before(async () => {
  const env = { ...FAST_PIPELINE, EXCHANGE_TIMEOUT_MS: '400', EXCHANGE_MAX_ATTEMPTS: '2', EXCHANGE_RETRY_BASE_MS: '20', EXCHANGE_RETRY_MAX_MS: '50' };
  t = await startTestService({ env: { ...env, EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true' } });
  guarded = await startTestService({ env });
  certs = new CertificateFactory();
  stranger = certs.make('/CN=Otro SRL/serialNumber=109999995');
  buyerServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rnc = /\/buyer\/(\d+)\//.exec(req.url ?? '')?.[1] ?? '';
      const buyer = modes.get(rnc);
      if (req.url?.endsWith('/semilla')) return res.end(seedModelXml('semilla-de-prueba', Date.now()));
      if (req.url?.endsWith('/validacioncertificado')) return res.end(JSON.stringify({ token: 'tok', expira: '', expedido: '' }));
      if (buyer === undefined) return res.writeHead(404).end();
      if (buyer.mode === 'hang') return;
      if (buyer.mode === 'garbage') return res.end('<<esto no es XML');
      const body = Buffer.concat(chunks).toString('utf8');
      const ecfXml = body.slice(body.indexOf('<?xml'), body.lastIndexOf('</ECF>') + '</ECF>'.length);
      if (buyer.mode === 'wrongSigner') return res.end(arecfFor(ecfXml, stranger));
      return res.end(arecfFor(ecfXml, buyer.credentials).replace('<Estado>0</Estado>', '<Estado>1</Estado>'));
    });
  });
  await new Promise<void>((resolve) => buyerServer.listen(0, '127.0.0.1', resolve));
  buyerUrl = `http://127.0.0.1:${(buyerServer.address() as { port: number }).port}`;
});
after(async () => {
  buyerServer.closeAllConnections();
  await new Promise((resolve) => buyerServer.close(resolve));
  await t.close();
  await guarded.close();
  certs.remove();
});

async function deliverTo(service: TestService, mode: Mode): Promise<Loose> {
  const rnc = randomRnc();
  modes.set(rnc, { mode, credentials: certs.make(`/CN=Comprador ${rnc}/serialNumber=${rnc}`) });
  const base = `${buyerUrl}/buyer/${rnc}`;
  service.service.simulator?.listInDirectory({ nombre: 'Comprador', rnc, urlRecepcion: base, urlAceptacion: base, urlOpcional: base });
  const a = await newTenantWithCertificate(service.url);
  const res = await call(service.url, 'POST', '/TesteCF/documentos-ecf', {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc }, Comprador: { RNCComprador: rnc } } }),
    headers: { 'x-api-key': a.apiKey },
  });
  assert.equal(res.status, 202, res.text);
  return waitFor(async () => {
    const d = (await call(service.url, 'GET', `/TesteCF/documentos-ecf/${res.body.data.internalTrackId}`, { headers: { 'x-api-key': a.apiKey } })).body.data;
    return d.receptor.estado !== 'pendiente' ? d : undefined;
  }, 30_000, `the buyer leg (${mode})`);
}

const cases: [Mode, RegExp][] = [
  ['hang', /after 2 attempts: .*no answer within 400 ms/],
  ['garbage', /not validly signed|not a readable|XML/i],
  ['tampered', /not validly signed: digest mismatch/],
  ['wrongSigner', /signed by RNC 109999995, not by the buyer/],
];

for (const [mode, reason] of cases) {
  test(`a buyer receiver that answers "${mode}" leaves receptor.estado = error with the reason; the document stays aceptado`, async () => {
    const d = await deliverTo(t, mode);
    assert.equal(d.receptor.estado, 'error', JSON.stringify(d.receptor));
    assert.match(d.receptor.detalle, reason);
    assert.equal(d.estado, 'aceptado');
  });
}

test('a directory URL into a private network is refused by the egress guard unless EXCHANGE_ALLOW_PRIVATE_NETWORKS', async () => {
  const d = await deliverTo(guarded, 'garbage');
  assert.equal(d.receptor.estado, 'error');
  assert.match(d.receptor.detalle, /refused destination: 127\.0\.0\.1 is loopback/);
});
