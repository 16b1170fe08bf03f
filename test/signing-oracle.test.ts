import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { TransientAuthorityError } from '../src/dgii/authority.ts';
import { DgiiClient } from '../src/dgii/protocol/index.ts';
import { NotASeedError, seedProblem, signSeedXml } from '../src/ecf/xml/seed-check.ts';
import { ExchangeError } from '../src/exchange/egress.ts';
import { FeClient } from '../src/exchange/fe-client.ts';
import type { Environment } from '../src/environments.ts';
import { verifyXml } from '../src/xml/index.ts';
import { CertificateFactory, EMISOR_RNC, EMISOR_SUBJECT } from './helpers/dgii-protocol.ts';
import { GENUINE_SEEDS, hostileSeeds } from './helpers/hostile-seeds.ts';

// The signing oracle (issue 28, item 1): a receiver, or whatever answers at DGII's seed URL,
// hands back a document of its choosing as "the seed". The tenant's key signs it only when it is
// exactly DGII's seed document; anything else ends the attempt with the reason, nothing signed.

const certs = new CertificateFactory();
const tenant = certs.make(EMISOR_SUBJECT);
const HOSTILE = hostileSeeds(EMISOR_RNC);

/** A server answering the seed request with `current`, recording every other request's path. */
let server: Server;
let url = '';
let current = '';
const posted: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && (req.url ?? '').endsWith('/semilla')) return res.writeHead(200, { 'content-type': 'application/xml' }).end(current);
      posted.push(`${req.url ?? ''} ${Buffer.concat(chunks).toString('utf8')}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: 'tok', expira: '2099-01-01T01:00:00Z', expedido: '2099-01-01T00:00:00Z', trackId: 'x' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  certs.remove();
});

describe('seedProblem', () => {
  for (const [name, xml] of Object.entries(GENUINE_SEEDS)) {
    test(`accepts ${name}`, () => {
      assert.equal(seedProblem(xml), null);
      assert.equal(verifyXml(signSeedXml(xml, tenant.privateKey, tenant.certificate)).valid, true);
    });
  }
  for (const [name, xml] of Object.entries(HOSTILE)) {
    test(`refuses ${name}, and signSeedXml signs nothing`, () => {
      assert.notEqual(seedProblem(xml), null);
      assert.throws(() => signSeedXml(xml, tenant.privateKey, tenant.certificate), (err: unknown) => err instanceof NotASeedError && /nothing was signed/.test(err.message));
    });
  }
});

describe('the exchange client (buyer and emisor legs)', () => {
  const entry = () => ({ nombre: 'Receptor hostil', rnc: '101010101', urlRecepcion: url, urlAceptacion: url, urlOpcional: url });
  const client = new FeClient({ timeoutMs: 2_000, allowPrivate: true });
  for (const [name, xml] of Object.entries(HOSTILE)) {
    test(`a receiver answering the seed request with ${name} gets nothing signed: e-CF and ACECF end with the reason`, async () => {
      current = xml;
      posted.length = 0;
      const refused = (err: unknown) => err instanceof ExchangeError && !err.transient && /not DGII's seed document/.test(err.message);
      await assert.rejects(client.sendEcf(entry(), tenant, 'E310000000001.xml', '<ECF/>', new AbortController().signal), refused);
      await assert.rejects(client.sendApproval(entry(), tenant, 'ACECF.xml', '<ACECF/>', new AbortController().signal), refused);
      assert.deepEqual(posted, [], 'nothing was posted back to the receiver');
    });
  }
  test('a genuine seed is still signed and answered with a token', async () => {
    current = GENUINE_SEEDS['DGII’s seed'] ?? '';
    posted.length = 0;
    assert.equal(await client.token(entry(), tenant, new AbortController().signal), 'tok');
    assert.equal(posted.length, 1);
    assert.match(posted[0] ?? '', /\/validacioncertificado [\s\S]*<SemillaModel[\s\S]*<SignatureValue>/);
  });
});

describe('the DGII client', () => {
  const urls = (prefix: string) => ({ TesteCF: `${url}${prefix}/testecf`, CerteCF: `${url}${prefix}/certecf`, eCF: `${url}${prefix}/ecf` }) satisfies Record<Environment, string>;
  for (const [name, xml] of Object.entries(HOSTILE)) {
    test(`a "DGII" answering the seed request with ${name} gets nothing signed`, async () => {
      current = xml;
      posted.length = 0;
      const client = new DgiiClient({ baseUrls: urls(''), fcBaseUrls: urls('/fc'), timeoutMs: 2_000, credentials: async () => tenant });
      await assert.rejects(client.token(1, 'TesteCF', new AbortController().signal), (err: unknown) => err instanceof TransientAuthorityError && /not DGII's seed document/.test(err.message));
      assert.deepEqual(posted, []);
    });
  }
});

// The audit of docs/architecture.md ("What the tenant's key signs"), kept true: every call of
// signXml, signXmlWithValue or signBuiltWithValue in src/ is one of these, each signing a document the service built. A new one must be
// audited and added here and there.
const AUDITED_SIGNERS: Record<string, string> = {
  'src/documents/signing.ts': 'the e-CF and RFCE built by buildEcfTree / buildRfceXml from the stored document',
  'src/documents/annulment-job.ts': 'the ANECF built by buildAnecfXml from the stored annulment',
  'src/receiver/service.ts': 'the ARECF built by buildArecfXml',
  'src/receiver/buyer-approval.ts': 'the ACECF built by buildAcecfXml',
  'src/ecf/xml/seed-check.ts': 'a seed, only once seedProblem found it exactly DGII\'s seed document',
  'src/approvals/service.ts': 'the ACECF about any e-CF built by buildAcecfXml from the tenant\'s validated decision',
  'src/certification/service.ts': 'a portal document (the postulación) only once recognisePortalDocument found it on the allow-list, naming the tenant\'s RNC',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('the tenant\'s key signs only where the audit says: every signXml, signXmlWithValue or signBuiltWithValue call in src/ is listed', () => {
  const root = join(import.meta.dirname, '..');
  const callers = sourceFiles(join(root, 'src'))
    .filter((file) => !file.endsWith(join('src', 'xml', 'xmldsig.ts')))
    .filter((file) => /\bsign(Xml|XmlWithValue|BuiltWithValue)\(/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file))
    .sort();
  assert.deepEqual(callers, Object.keys(AUDITED_SIGNERS).sort());
  const docs = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
  for (const file of callers) assert.ok(docs.includes(`\`${file}\``), `docs/architecture.md names ${file} in "What the tenant's key signs"`);
});
