import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FeSender, multipartXml, receiverBase, SENDER_SUBJECT, signedEcfTo } from './helpers/fe-sender.ts';
import { call } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';

// The receiver's unauthenticated steps are limited per client IP before the tenant's budget:
// one address cannot spend a tenant's receiver alone, nor probe RNCs at a query each.

let t: TestService;
let certs: CertificateFactory;
let credentials: DgiiCredentials;
let rnc: string;

before(async () => {
  t = await startTestService({
    env: { TRUST_PROXY: '1', RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE: '5', RATE_LIMIT_RECEIVER_PER_MINUTE: '1000', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' },
  });
  certs = new CertificateFactory();
  credentials = certs.make(SENDER_SUBJECT);
  rnc = (await newTenantWithCertificate(t.url)).rnc;
});
after(async () => {
  await t.close();
  certs.remove();
});

const from = (ip: string) => ({ 'x-forwarded-for': ip });
const seed = (ip: string, r = rnc) => call(t.url, 'GET', `${receiverBase('TesteCF', r)}/autenticacion/api/semilla`, { headers: from(ip) });

test('a flood of seeds from one address gets 429 while another address keeps going', async () => {
  for (let i = 0; i < 5; i++) {
    const res = await seed('198.51.100.10');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-policy'), '"receiverIp";q=5;w=60, "receiverAnonymous";q=300;w=60');
  }
  const refused = await seed('198.51.100.10');
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'RATE_LIMITED');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal(refused.headers.get('ratelimit-policy'), '"receiverIp";q=5;w=60');
  // Every /fe/* path of every tenant shares the address's bucket.
  const { body, headers } = multipartXml('<SemillaModel/>');
  assert.equal((await call(t.url, 'POST', `${receiverBase('TesteCF', rnc)}/autenticacion/api/validacioncertificado`, { body, headers: { ...headers, ...from('198.51.100.10') } })).status, 429);
  assert.equal((await seed('198.51.100.11')).status, 200, 'another sender is not held up');
});

test('RNCs no tenant has share the per-IP limit, and beyond it cost nothing more', async () => {
  const ip = '198.51.100.20';
  for (let i = 0; i < 5; i++) assert.equal((await seed(ip, `99999990${i}`)).status, 404);
  const buckets = t.service.rateLimits.size('receiverAnonymous');
  for (let i = 5; i < 10; i++) assert.equal((await seed(ip, `99999990${i}`)).status, 429);
  assert.equal((await seed(ip)).status, 429, 'a real tenant from that address too');
  assert.equal(t.service.rateLimits.size('receiverAnonymous'), buckets, 'refused before the tenant\'s bucket and the tenant lookup');
});

test('a sender with a valid token is held to the tenant\'s budget only; refused tokens count per address', async () => {
  const ip = '198.51.100.30';
  const sender = new FeSender(t.url, receiverBase('TesteCF', rnc), credentials);
  const seeded = await seed(ip);
  assert.equal(seeded.status, 200);
  const { body, headers } = multipartXml(sender.sign(seeded.text));
  const validated = await call(t.url, 'POST', `${receiverBase('TesteCF', rnc)}/autenticacion/api/validacioncertificado`, { body, headers: { ...headers, ...from(ip) } });
  assert.equal(validated.status, 200, validated.text);
  const token = validated.body.token as string;
  for (let i = 0; i < 8; i++) {
    const res = await sender.send('recepcion', signedEcfTo(credentials, { rncComprador: rnc }).xml, token, from(ip));
    assert.equal(res.status, 200, `e-CF ${i + 1}: ${res.text.slice(0, 200)}`);
  }
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await sender.send('recepcion', '<ECF/>', 'not-a-token', from('198.51.100.31'))).status);
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
});

test('anonymous requests from many addresses, each under its limit, cannot spend what a sender with a valid token needs', async () => {
  // Both budgets of the tenant are small and equal: before they were one bucket, the flood spent it.
  const small = await startTestService({
    database: t.database,
    env: { TRUST_PROXY: '1', RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE: '5', RATE_LIMIT_RECEIVER_PER_MINUTE: '8', RATE_LIMIT_RECEIVER_ANONYMOUS_PER_MINUTE: '8' },
  });
  try {
    const base = receiverBase('TesteCF', rnc);
    const sender = new FeSender(small.url, base, credentials);
    const seeded = await call(small.url, 'GET', `${base}/autenticacion/api/semilla`, { headers: from('203.0.113.1') });
    const { body, headers } = multipartXml(sender.sign(seeded.text));
    const validated = await call(small.url, 'POST', `${base}/autenticacion/api/validacioncertificado`, { body, headers: { ...headers, ...from('203.0.113.1') } });
    assert.equal(validated.status, 200, validated.text);
    // Six addresses, each well under its own limit, ask for seeds until the anonymous budget is spent.
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call(small.url, 'GET', `${base}/autenticacion/api/semilla`, { headers: from(`198.51.100.${100 + (i % 6)}`) })).status);
    assert.ok(statuses.includes(429), `the anonymous budget ran out: ${statuses.join(', ')}`);
    const res = await sender.send('recepcion', signedEcfTo(credentials, { rncComprador: rnc }).xml, validated.body.token as string, from('203.0.113.1'));
    assert.equal(res.status, 200, `the authenticated sender is served: ${res.text.slice(0, 200)}`);
    assert.match(res.headers.get('ratelimit-policy') ?? '', /"receiver";q=8;w=60/);
  } finally {
    await small.close();
  }
});
