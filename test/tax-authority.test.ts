import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';
import { DGII_BASE_URLS, DGII_FC_BASE_URLS } from '../src/dgii/protocol/index.ts';
import { createDgiiSimulator, type DgiiSimulator } from '../src/dgii/simulator/index.ts';
import { createLogger } from '../src/log.ts';
import { call } from './helpers/http.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';

describe('TAX_AUTHORITY configuration', () => {
  test('the default is the in-process simulator, with DGII\'s addresses ready for dgii', () => {
    const c = loadConfig({});
    assert.equal(c.authority.kind, 'simulator');
    assert.deepEqual(c.authority.baseUrls, DGII_BASE_URLS);
    assert.deepEqual(c.authority.fcBaseUrls, DGII_FC_BASE_URLS);
    assert.equal(c.authority.timeoutMs, 30_000);
  });

  test('dgii addresses can be overridden per environment; trailing slashes are dropped', () => {
    const c = loadConfig({ TAX_AUTHORITY: 'dgii', DGII_BASE_URL_CERTECF: 'https://proxy.example.com/certecf/', DGII_FC_BASE_URL_ECF: 'http://127.0.0.1:8090/fc/ecf', DGII_TIMEOUT_MS: '5000' });
    assert.equal(c.authority.kind, 'dgii');
    assert.deepEqual(c.authority.baseUrls, { ...DGII_BASE_URLS, CerteCF: 'https://proxy.example.com/certecf' });
    assert.equal(c.authority.fcBaseUrls.eCF, 'http://127.0.0.1:8090/fc/ecf');
    assert.equal(c.authority.timeoutMs, 5000);
  });

  test('bad values are reported: unknown kinds, non-URLs, and plain http in production', () => {
    assert.throws(() => loadConfig({ TAX_AUTHORITY: 'simulated' }), /TAX_AUTHORITY must be one of simulator, dgii/);
    try {
      loadConfig({ NODE_ENV: 'production', ECF_MASTER_KEY: 'ff'.repeat(32), DGII_BASE_URL_ECF: 'http://ecf.example.com/ecf', DGII_FC_BASE_URL_TESTECF: 'not a url', DGII_TIMEOUT_MS: '10' });
      assert.fail('expected ConfigError');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.problems.filter((p) => p.startsWith('DGII_')), [
        'DGII_TIMEOUT_MS must be an integer from 100 to 600000 (got "10")',
        'DGII_BASE_URL_ECF must be an absolute https URL (got "http://ecf.example.com/ecf")',
        'DGII_FC_BASE_URL_TESTECF must be an absolute https URL (got "not a url")',
      ]);
    }
  });
});

describe('TAX_AUTHORITY=dgii', () => {
  let simulator: DgiiSimulator;
  let t: TestService;
  before(async () => {
    // A simulator started apart, as `npm run simulator` would run it, standing in for DGII.
    simulator = createDgiiSimulator({ processingMs: 100, log: createLogger('silent') });
    const { url } = await simulator.listen(0, '127.0.0.1');
    t = await startTestService({
      env: { ...FAST_PIPELINE, TAX_AUTHORITY: 'dgii', DGII_BASE_URL_TESTECF: `${url}/testecf`, DGII_FC_BASE_URL_TESTECF: `${url}/fc/testecf` },
    });
  });
  after(async () => {
    await t.close();
    await simulator.close();
  });

  test('the service starts no simulator of its own and talks to the configured addresses', async () => {
    assert.equal(t.service.simulator, null);
    const a = await newTenantWithCertificate(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers });
    const doc = await waitForEstado(t.url, 'TesteCF', res.body.data.internalTrackId, headers, ['aceptado']);
    assert.equal(doc.dgiiCode, '0');
    const counters = simulator.counters();
    assert.equal(counters.tokensIssued, 1);
    assert.equal(counters.documentsReceived, 1);
  });
});
