import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { loopbackScrape } from '../src/metrics/routes.ts';
import { call, newTenant } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { waitFor } from './helpers/wait.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';

describe('GET /metrics from loopback', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ env: { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '3', TRUST_PROXY: '1' } });
  });
  after(() => t.close());

  test('exposes request counts, latency, jobs, deliveries and rate-limit refusals', async () => {
    await call(t.url, 'GET', '/healthz');
    for (let i = 0; i < 4; i++) await call(t.url, 'POST', '/TesteCF/customer/authentication', { json: { email: 'x@example.com', password: 'whatever it is' } });
    const res = await call(t.url, 'GET', '/metrics');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const text = res.text;
    assert.match(text, /^ecf_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1$/m);
    assert.match(text, /^ecf_http_requests_total\{method="POST",route="\/\{env\}\/customer\/authentication",status="429"\} 1$/m);
    assert.match(text, /^ecf_http_request_duration_seconds_bucket\{method="GET",route="\/healthz",le="\+Inf"\} 1$/m);
    assert.match(text, /^ecf_rate_limit_refusals_total\{scope="publicAuth"\} 1$/m);
    assert.match(text, /^ecf_jobs_queued\{kind="maintenance.purge"\} \d+$/m);
    assert.match(text, /^ecf_webhook_deliveries\{status="abandoned"\} 0$/m);
    assert.match(text, /^ecf_database_up 1$/m);
    assert.match(text, /^process_resident_memory_bytes \d+$/m);
    // Every sample line is "name{labels} value".
    for (const line of text.trim().split('\n')) assert.match(line, /^(# (HELP|TYPE) .+|[a-z_]+(\{.*\})? [0-9.e+-]+)$/, line);
  });

  test('a client that is not on loopback is refused', async () => {
    const res = await call(t.url, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.5' } });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'FORBIDDEN');
  });

  test('any address of 127.0.0.0/8 is loopback', async () => {
    const { port } = new URL(t.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/metrics', localAddress: '127.0.0.2' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200);
  });

  test('a forwarded loopback address does not open it to a peer that is not on loopback', () => {
    assert.equal(loopbackScrape('127.0.0.1', '127.0.0.1'), true);
    assert.equal(loopbackScrape('::1', '::1'), true);
    assert.equal(loopbackScrape('203.0.113.5', '127.0.0.1'), false, 'X-Forwarded-For: 127.0.0.1 sent straight to the port');
    assert.equal(loopbackScrape('127.0.0.1', '203.0.113.5'), false, 'a proxy on this host forwarding an outside client');
    assert.equal(loopbackScrape('128.0.0.1', '128.0.0.1'), false);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ env: { METRICS_TOKEN: 'scrape-secret-1234' } });
  });
  after(() => t.close());

  test('only the token opens it, even from loopback', async () => {
    assert.equal((await call(t.url, 'GET', '/metrics')).status, 403);
    assert.equal((await call(t.url, 'GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status, 403);
    const a = await newTenant(t.url);
    assert.equal((await call(t.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${a.accessToken}` } })).status, 403);
    const ok = await call(t.url, 'GET', '/metrics', { headers: { authorization: 'Bearer scrape-secret-1234' } });
    assert.equal(ok.status, 200);
    assert.equal((await call(t.url, 'GET', '/metrics', { headers: { authorization: 'bearer  scrape-secret-1234' } })).status, 200, 'the scheme is case-insensitive');
    assert.match(ok.text, /ecf_http_requests_total/);
  });
});

describe('GET /metrics while the database is unreachable', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  test('still answers with the request counters, ecf_database_up 0 and no database-derived gauges', async () => {
    assert.equal((await call(t.url, 'GET', '/healthz')).status, 200);
    // The service's pool is closed under it: every query now fails as on a lost connection.
    await t.sql.end({ timeout: 1 });
    const ready = await call(t.url, 'GET', '/readyz');
    assert.equal(ready.status, 503, ready.text);

    const res = await call(t.url, 'GET', '/metrics');
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, /^ecf_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1$/m);
    assert.match(res.text, /^ecf_http_requests_total\{method="GET",route="\/readyz",status="503"\} 1$/m);
    assert.match(res.text, /^ecf_http_request_duration_seconds_count\{method="GET",route="\/readyz"\} 1$/m);
    assert.match(res.text, /^ecf_database_up 0$/m);
    assert.match(res.text, /^process_resident_memory_bytes \d+$/m);
    assert.doesNotMatch(res.text, /^(# (HELP|TYPE) )?(ecf_jobs_queued|ecf_jobs_running|ecf_webhook_deliveries)\b/m);
  });
});

describe('what operators alert on', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ env: { ...FAST_PIPELINE } });
  });
  after(() => t.close());

  const sample = (text: string, series: string): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  test('certificate expiry per tenant, documents by estado, buyer legs, and DGII requests by service and outcome', async () => {
    const a = await newTenantWithCertificate(t.url);
    const simulator = t.service.simulator;
    assert.ok(simulator !== null);
    simulator.injectFault({ service: 'recepcion', status: 503, times: 1 });
    const sent = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    assert.equal(sent.status, 202, sent.text);
    await waitForEstado(t.url, 'TesteCF', sent.body.data.internalTrackId, { 'x-api-key': a.apiKey }, ['aceptado']);
    const invalid = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: { ECF: {} }, headers: { 'x-api-key': a.apiKey } });
    assert.equal(invalid.status, 422);

    // The buyer leg is decided after the verdict, by a job of its own: scrape once it has been.
    const legStates = ['pendiente', 'recibido', 'no_recibido', 'no_aplica', 'error'];
    const text = await waitFor(async () => {
      const scraped = (await call(t.url, 'GET', '/metrics')).text;
      const legs = legStates.map((estado) => sample(scraped, `ecf_documents_receptor{environment="TesteCF",estado="${estado}"}`) ?? 0);
      return legs.reduce((x, y) => x + y, 0) === 1 ? scraped : undefined;
    }, 10_000, 'the buyer leg counted');
    const [cert] = await t.sql<{ validTo: Date }[]>`select valid_to from certificates where tenant_id = ${a.tenantId} and active`;
    assert.ok(cert !== undefined);
    assert.equal(sample(text, `ecf_certificate_not_after_seconds{tenant="${a.tenantId}"}`), Math.floor(cert.validTo.getTime() / 1000));
    assert.equal(sample(text, 'ecf_documents{environment="TesteCF",estado="aceptado"}'), 1);
    assert.equal(sample(text, 'ecf_documents{environment="eCF",estado="rechazado"}'), 0, 'every state is listed, 0 included');
    const legs = legStates.map((estado) => sample(text, `ecf_documents_receptor{environment="eCF",estado="${estado}"}`));
    assert.deepEqual(legs, [0, 0, 0, 0, 0], 'every leg state of every environment is listed');
    assert.equal(sample(text, 'ecf_dgii_requests_total{service="recepcion",outcome="server_error"}'), 1);
    assert.equal(sample(text, 'ecf_dgii_requests_total{service="recepcion",outcome="ok"}'), 1);
    assert.ok((sample(text, 'ecf_dgii_requests_total{service="seed",outcome="ok"}') ?? 0) >= 1, text);
    assert.ok((sample(text, 'ecf_dgii_requests_total{service="estado",outcome="ok"}') ?? 0) >= 1, text);
  });

  test('queue depth and age: jobs due and unclaimed, and how long the oldest has waited', async () => {
    const idle = await startTestService({ env: { WORKERS_ENABLED: 'false' } });
    try {
      await idle.sql`insert into jobs (kind, payload, run_at) values ('webhook.deliver', '{}', now() - interval '90 seconds'), ('webhook.deliver', '{}', now() - interval '10 seconds'), ('webhook.deliver', '{}', now() + interval '1 hour')`;
      const text = (await call(idle.url, 'GET', '/metrics')).text;
      assert.equal(sample(text, 'ecf_jobs_queued{kind="webhook.deliver"}'), 3);
      assert.equal(sample(text, 'ecf_jobs_due{kind="webhook.deliver"}'), 2);
      const age = sample(text, 'ecf_jobs_oldest_due_age_seconds{kind="webhook.deliver"}') ?? 0;
      assert.ok(age >= 90 && age < 600, String(age));
      assert.equal(sample(text, 'ecf_jobs_oldest_due_age_seconds{kind="exchange.deliver"}'), 0);
    } finally {
      await idle.close();
    }
  });
});
