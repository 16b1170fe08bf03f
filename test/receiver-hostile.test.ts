import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { arecfOutcome, FeSender, multipartXml, receiverBase, SENDER_SUBJECT, signedEcfTo } from './helpers/fe-sender.ts';
import { call } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';

// Whatever another party sends to a receiver, the answer is a 4xx or an ARECF: never a 500.

let t: TestService;
let certs: CertificateFactory;
let credentials: DgiiCredentials;
let rnc: string;
let sender: FeSender;
let token: string;

before(async () => {
  t = await startTestService({ env: { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000', RATE_LIMIT_RECEIVER_PER_MINUTE: '100000' } });
  certs = new CertificateFactory();
  credentials = certs.make(SENDER_SUBJECT);
  rnc = (await newTenantWithCertificate(t.url)).rnc;
  sender = new FeSender(t.url, receiverBase('TesteCF', rnc), credentials);
  token = await sender.token();
});
after(async () => {
  await t.close();
  certs.remove();
});

const BOMB = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<ECF><Encabezado>&lol3;</Encabezado></ECF>`;
const XXE = '<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY x SYSTEM "file:///etc/passwd">]><ECF>&x;</ECF>';
const DEEP = `${'<a>'.repeat(5_000)}${'</a>'.repeat(5_000)}`;
const UNDECLARED_ENTITY = '<ECF><Encabezado>&lol;</Encabezado></ECF>';

function uploadTo(path: string, xml: string | Buffer, withToken = true) {
  const { body, headers } = multipartXml(xml);
  return call(t.url, 'POST', `${receiverBase('TesteCF', rnc)}/${path}`, { body, headers: { ...headers, ...(withToken ? { authorization: `Bearer ${token}` } : {}) } });
}

test('random bytes, non-multipart bodies and malformed uploads get 400 from every upload path', async () => {
  const paths = ['autenticacion/api/validacioncertificado', 'recepcion/api/ecf', 'aprobacioncomercial/api/ecf'];
  for (const path of paths) {
    const url = `${receiverBase('TesteCF', rnc)}/${path}`;
    const auth = { authorization: `Bearer ${token}` };
    const cases: { body: Buffer | string; headers: Record<string, string> }[] = [
      { body: randomBytes(4096), headers: { ...auth, 'content-type': 'application/octet-stream' } },
      { body: '{"xml":"<ECF/>"}', headers: { ...auth, 'content-type': 'application/json' } },
      { body: '', headers: auth },
      { body: 'no boundary here', headers: { ...auth, 'content-type': 'multipart/form-data' } },
      { body: '--x\r\nContent-Disposition: form-data; name="xml"\r\n\r\n<ECF/>', headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x' } },
      { ...multipartXml('<ECF/>', 'otro'), headers: { ...auth, ...multipartXml('', 'otro').headers } },
    ];
    for (const [i, c] of cases.entries()) {
      const res = await call(t.url, 'POST', url, { body: c.body, headers: c.headers });
      assert.equal(res.status, 400, `${path} case ${i}: ${res.text}`);
      assert.equal(res.body.success, false);
    }
    for (const xml of [randomBytes(2048), Buffer.from([0xff, 0xfe, 0x00, 0x3c]), '<ECF>', 'plain text', '<?xml version="1.1"?><ECF/>']) {
      const res = await uploadTo(path, xml);
      assert.equal(res.status, 400, `${path}: ${res.text}`);
    }
  }
});

test('an entity bomb, an external entity and deep nesting are refused with 400 without being expanded', async () => {
  for (const path of ['autenticacion/api/validacioncertificado', 'recepcion/api/ecf', 'aprobacioncomercial/api/ecf']) {
    for (const xml of [BOMB, XXE, DEEP, UNDECLARED_ENTITY]) {
      const started = Date.now();
      const res = await uploadTo(path, xml);
      assert.equal(res.status, 400, `${path}: ${res.text.slice(0, 200)}`);
      assert.doesNotMatch(res.text, /root:/);
      assert.ok(Date.now() - started < 5_000);
    }
  }
});

test('documents that are XML but not an acknowledgeable e-CF get 400, not an ARECF', async () => {
  const cases = [
    '<ACECF><DetalleAprobacionComercial/></ACECF>',
    '<ECF><Encabezado><IdDoc><eNCF>E31</eNCF></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor></Emisor></Encabezado></ECF>',
    '<ECF><Encabezado><IdDoc><eNCF>E310000000001</eNCF></IdDoc><Emisor><RNCEmisor>12</RNCEmisor></Emisor></Encabezado></ECF>',
    '<x:ECF xmlns:x="urn:x"/>',
  ];
  for (const xml of cases) {
    const res = await uploadTo('recepcion/api/ecf', xml);
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error.message, /acuse de recibo/);
  }
  // Readable identifiers but no signature: acknowledged as not received for its signature.
  const unsigned = '<ECF><Encabezado><IdDoc><eNCF>E310000000001</eNCF></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor></Emisor></Encabezado></ECF>';
  const res = await uploadTo('recepcion/api/ecf', unsigned);
  assert.equal(res.status, 200);
  assert.deepEqual([arecfOutcome(res.text).estado, arecfOutcome(res.text).motivo, arecfOutcome(res.text).rncComprador], ['1', '2', rnc]);
});

/** A small deterministic generator, so a failing mutation can be reproduced. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test('mutations of a signed e-CF are answered with an ARECF or a 400, never a 500', async () => {
  const { xml } = signedEcfTo(credentials, { rncComprador: rnc });
  const bytes = Buffer.from(xml, 'utf8');
  const next = prng(20250301);
  const variants: Buffer[] = [];
  for (let i = 0; i < 25; i++) variants.push(bytes.subarray(0, Math.floor(next() * bytes.length)));
  for (let i = 0; i < 25; i++) {
    const copy = Buffer.from(bytes);
    for (let j = 0; j < 3; j++) copy[Math.floor(next() * copy.length)] = Math.floor(next() * 256);
    variants.push(copy);
  }
  for (let i = 0; i < 10; i++) {
    const at = Math.floor(next() * bytes.length);
    variants.push(Buffer.concat([bytes.subarray(0, at), Buffer.from(['<x>', '</ECF>', '&amp;', ']]>', '<!--', '<?pi?>', '"', '<ECF>', '\u0000', '<Signature/>'][i] ?? '', 'utf8'), bytes.subarray(at)]));
  }
  const statuses = new Map<number, number>();
  for (const variant of variants) {
    const res = await uploadTo('recepcion/api/ecf', variant);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    assert.ok(res.status === 200 || res.status === 400, `status ${res.status}: ${res.text.slice(0, 300)}`);
    if (res.status === 200) assert.equal(arecfOutcome(res.text).estado, '1');
  }
  assert.ok((statuses.get(200) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0, JSON.stringify([...statuses]));
});

/** Sends `size` bytes to `path` with node:http, reading the answer even if the server stops reading early. */
function postLarge(path: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=b', 'content-length': String(size), authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(Buffer.alloc(size, 0x61));
  });
}

test('bodies over each route\'s cap are refused with 413', async () => {
  const base = receiverBase('TesteCF', rnc);
  assert.equal(await postLarge(`${base}/recepcion/api/ecf`, 5 * 1024 * 1024 + 1), 413);
  assert.equal(await postLarge(`${base}/autenticacion/api/validacioncertificado`, 64 * 1024 + 1), 413);
  assert.equal(await postLarge(`${base}/aprobacioncomercial/api/ecf`, 64 * 1024 + 1), 413);
  // Under the cap, the same bytes are merely not multipart.
  assert.equal(await postLarge(`${base}/aprobacioncomercial/api/ecf`, 1024), 400);
});

test('the receiver\'s anonymous scope limits each tenant\'s receiver on its own, and answers 429 beyond it', async () => {
  const limited = await startTestService({ database: t.database, env: { RATE_LIMIT_RECEIVER_ANONYMOUS_PER_MINUTE: '5', RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  try {
    const other = await newTenantWithCertificate(limited.url);
    const path = (r: string) => `${receiverBase('TesteCF', r)}/autenticacion/api/semilla`;
    for (let i = 0; i < 5; i++) {
      const res = await call(limited.url, 'GET', path(rnc));
      assert.equal(res.status, 200);
      assert.match(res.headers.get('ratelimit-policy') ?? '', /"receiverAnonymous";q=5;w=60/);
    }
    const refused = await call(limited.url, 'GET', path(rnc));
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    // Every /fe/* request no valid token vouches for shares the tenant's bucket, whatever the case of the path.
    assert.equal((await call(limited.url, 'POST', `${receiverBase('TesteCF', rnc)}/RECEPCION/api/ecf`)).status, 429);
    assert.equal((await call(limited.url, 'GET', path(other.rnc))).status, 200);
  } finally {
    await limited.close();
  }
});
