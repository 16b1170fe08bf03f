// The DGII client and the TaxAuthority adapter over it, against the simulator (and, for
// transport failures the simulator cannot produce, a small server that misbehaves on purpose).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PermanentAuthorityError, TransientAuthorityError, type Submission } from '../src/dgii/authority.ts';
import { DgiiAuthority, DgiiClient, NO_CERTIFICATE_MESSAGE, type DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { TokenCache, usableLifetimeMs } from '../src/dgii/protocol/tokens.ts';
import { formatFechaHoraFirma, parseDgiiDateTime, securityCodeOf } from '../src/ecf/xml/index.ts';
import type { Environment } from '../src/environments.ts';
import { signXml } from '../src/xml/index.ts';
import { CertificateFactory, EMISOR_RNC, EMISOR_SUBJECT, nextEncf, signedEcf, signedRfce, startSimulator, type RunningSimulator } from './helpers/dgii-protocol.ts';

// Long enough that "still En Proceso right after sending" holds on a loaded machine.
const PROCESSING_MS = 800;
const TENANT = 1;
const OTHER_TENANT = 2;
const NO_CERT_TENANT = 3;
const certs = new CertificateFactory();
let emisor: DgiiCredentials;
let other: DgiiCredentials;
let sim: RunningSimulator;
const signal = (): AbortSignal => new AbortController().signal;

before(async () => {
  emisor = certs.make(EMISOR_SUBJECT);
  other = certs.make('/CN=Otra Empresa SRL/serialNumber=101672919');
  sim = await startSimulator({ processingMs: PROCESSING_MS });
});
after(async () => {
  await sim.simulator.close();
  certs.remove();
});

function submission(doc: { xml: string; encf: string }, overrides: Partial<Submission> = {}): Submission {
  return {
    documentId: `doc-${doc.encf}`,
    signedXml: doc.xml,
    signedRfceXml: null,
    tenantId: TENANT,
    environment: 'TesteCF',
    tipo: 31,
    encf: doc.encf,
    rncEmisor: EMISOR_RNC,
    rncComprador: '101672919',
    fechaEmision: '2025-03-15',
    montoTotal: '100.00',
    ecf: {},
    ...overrides,
  };
}

function authority(options: { timeoutMs?: number } = {}): { authority: DgiiAuthority; client: DgiiClient } {
  const client = sim.client({ [TENANT]: emisor, [OTHER_TENANT]: other }, options);
  return { authority: new DgiiAuthority(client), client };
}

async function queued(a: DgiiAuthority, s: Submission): Promise<string> {
  const result = await a.submit(s, signal());
  assert.equal(result.kind, 'queued');
  return result.kind === 'queued' ? result.trackId : '';
}

/** A server whose every request is answered by `handler`; counts requests. */
async function misbehaving(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    n++;
    req.resume();
    req.on('end', () => handler(req, res, n));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests: () => n,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function clientOf(url: string, timeoutMs = 2_000): DgiiClient {
  const urls = (prefix: string) => ({ TesteCF: `${url}${prefix}/testecf`, CerteCF: `${url}${prefix}/certecf`, eCF: `${url}${prefix}/ecf` }) satisfies Record<Environment, string>;
  return new DgiiClient({ baseUrls: urls(''), fcBaseUrls: urls('/fc'), timeoutMs, credentials: async () => emisor });
}

describe('DgiiAuthority over the simulator', () => {
  it('submits an e-CF, reports En Proceso, then Aceptado after the processing time', async () => {
    const { authority: a } = authority();
    const trackId = await queued(a, submission(signedEcf(emisor)));
    assert.deepEqual(await a.status({ tenantId: TENANT, environment: 'TesteCF', trackId }, signal()), { kind: 'pending', dgiiMessage: 'En Proceso' });
    await sleep(PROCESSING_MS + 30);
    assert.deepEqual(await a.status({ tenantId: TENANT, environment: 'TesteCF', trackId }, signal()), {
      kind: 'final',
      verdict: { estado: 'aceptado', dgiiCode: '0', dgiiMessage: 'Aceptado', secuenciaUtilizada: true },
    });
  });

  it('authenticates once and reuses the token for later submissions and queries', async () => {
    const { authority: a } = authority();
    const before = sim.simulator.counters();
    const docs = [signedEcf(emisor), signedEcf(emisor), signedEcf(emisor)];
    const trackIds = await Promise.all(docs.map((d) => queued(a, submission(d))));
    await queued(a, submission(signedEcf(emisor)));
    for (const trackId of trackIds) await a.status({ tenantId: TENANT, environment: 'TesteCF', trackId }, signal());
    const now = sim.simulator.counters();
    assert.equal(now.seedsIssued - before.seedsIssued, 1);
    assert.equal(now.tokensIssued - before.tokensIssued, 1);
    assert.equal(now.documentsReceived - before.documentsReceived, 4);
  });

  it('keeps one token per environment', async () => {
    const { authority: a } = authority();
    const before = sim.simulator.counters().tokensIssued;
    await queued(a, submission(signedEcf(emisor)));
    await queued(a, submission(signedEcf(emisor), { environment: 'CerteCF' }));
    await queued(a, submission(signedEcf(emisor), { environment: 'CerteCF' }));
    assert.equal(sim.simulator.counters().tokensIssued - before, 2);
  });

  it('authenticates again once the tenant\'s certificate changes, instead of using the old holder\'s token', async () => {
    const credentials: Record<number, DgiiCredentials> = { [TENANT]: other };
    const client = sim.client(credentials);
    const before = sim.simulator.counters().tokensIssued;
    const oldHolders = await client.token(TENANT, 'TesteCF', signal());
    await assert.rejects(client.sendEcf(TENANT, 'TesteCF', { fileName: 'x.xml', xml: signedEcf(emisor).xml }, signal()), /no corresponde al RNC 101672919 del token/);
    credentials[TENANT] = emisor;
    const newHolders = await client.token(TENANT, 'TesteCF', signal());
    assert.notEqual(newHolders, oldHolders);
    const doc = signedEcf(emisor);
    const answer = await client.sendEcf(TENANT, 'TesteCF', { fileName: `${EMISOR_RNC}${doc.encf}.xml`, xml: doc.xml }, signal());
    assert.match(answer.trackId, /^[0-9a-f-]{36}$/);
    assert.equal(await client.token(TENANT, 'TesteCF', signal()), newHolders, 'the new token is cached in turn');
    assert.equal(sim.simulator.counters().tokensIssued - before, 2);
  });

  it('renews the token when DGII answers 401, once, and the request goes through', async () => {
    const { authority: a } = authority();
    await queued(a, submission(signedEcf(emisor)));
    const before = sim.simulator.counters();
    sim.simulator.expireTokens();
    const trackId = await queued(a, submission(signedEcf(emisor)));
    assert.match(trackId, /^[0-9a-f-]{36}$/);
    const now = sim.simulator.counters();
    assert.equal(now.tokensIssued - before.tokensIssued, 1);
    assert.equal(now.documentsReceived - before.documentsReceived, 1);
  });

  it('gives up with PermanentAuthorityError when the renewed token is refused too', async () => {
    const { authority: a } = authority();
    await queued(a, submission(signedEcf(emisor)));
    sim.simulator.injectFault({ service: 'recepcion', status: 401, times: 2 });
    await assert.rejects(a.submit(submission(signedEcf(emisor)), signal()), (err: unknown) => err instanceof PermanentAuthorityError && /HTTP 401/.test(err.message));
  });

  it('reports a reused eNCF as rechazado with DGII’s code and message', async () => {
    const { authority: a } = authority();
    const first = signedEcf(emisor);
    await queued(a, submission(first));
    const trackId = await queued(a, submission(signedEcf(emisor, { encf: first.encf })));
    await sleep(PROCESSING_MS + 30);
    assert.deepEqual(await a.status({ tenantId: TENANT, environment: 'TesteCF', trackId }, signal()), {
      kind: 'final',
      verdict: { estado: 'rechazado', dgiiCode: '4', dgiiMessage: 'El eNCF ya fue utilizado por este emisor', secuenciaUtilizada: true },
    });
  });

  it('reports a tampered signature as rechazado with a message about the signature', async () => {
    const { authority: a } = authority();
    const doc = signedEcf(emisor);
    const trackId = await queued(a, submission({ ...doc, xml: doc.xml.replace('<RazonSocialEmisor>', '<RazonSocialEmisor>X') }));
    await sleep(PROCESSING_MS + 30);
    const status = await a.status({ tenantId: TENANT, environment: 'TesteCF', trackId }, signal());
    assert.equal(status.kind, 'final');
    if (status.kind !== 'final') return;
    assert.equal(status.verdict.estado, 'rechazado');
    assert.equal(status.verdict.dgiiCode, '6');
    assert.match(status.verdict.dgiiMessage ?? '', /firma digital del documento no es válida: digest mismatch/);
  });

  it('joins several DGII messages with "; "', async () => {
    const { authority: a } = authority();
    const doc = signedEcf(emisor);
    const broken = doc.xml.replace(/<FechaVencimientoSecuencia>[^<]*<\/FechaVencimientoSecuencia>/, '');
    assert.notEqual(broken, doc.xml);
    // Re-sign the edited document so that only the schema is wrong.
    const unsigned = broken.replace(/<Signature[\s\S]*<\/Signature>/, '');
    const trackId = await queued(a, submission({ ...doc, xml: signXml(unsigned, emisor.privateKey, emisor.certificate) }));
    await sleep(PROCESSING_MS + 30);
    const status = await a.status({ tenantId: TENANT, environment: 'TesteCF', trackId }, signal());
    assert.equal(status.kind, 'final');
    if (status.kind !== 'final') return;
    assert.equal(status.verdict.dgiiCode, '7');
    assert.match(status.verdict.dgiiMessage ?? '', /^El documento no cumple con el esquema XSD; .*FechaVencimientoSecuencia/);
  });

  it('refuses a document of another RNC than the certificate holder with DGII’s explanation', async () => {
    const { authority: a } = authority();
    await assert.rejects(a.submit(submission(signedEcf(emisor), { tenantId: OTHER_TENANT }), signal()), (err: unknown) => {
      assert.ok(err instanceof PermanentAuthorityError);
      assert.match(err.message, /HTTP 400.*RNCEmisor 131880681 del documento no corresponde al RNC 101672919 del token/);
      return true;
    });
  });

  it('sends the RFCE of a small type 32 to the fc host and returns the verdict at once', async () => {
    const { authority: a } = authority();
    const before = sim.simulator.counters().summariesReceived;
    const { ecfXml, rfceXml, encf } = signedRfce(emisor);
    const result = await a.submit(submission({ xml: ecfXml, encf }, { tipo: 32, signedRfceXml: rfceXml }), signal());
    assert.deepEqual(result, { kind: 'final', trackId: null, verdict: { estado: 'aceptado', dgiiCode: '0', dgiiMessage: 'Aceptado', secuenciaUtilizada: true } });
    assert.equal(sim.simulator.counters().summariesReceived - before, 1);
  });

  it('findSubmissions lists the submissions of an eNCF oldest first, and none of an unused one', async () => {
    const { authority: a } = authority();
    const first = signedEcf(emisor);
    const firstTrackId = await queued(a, submission(first));
    await sleep(PROCESSING_MS + 300); // past the first one's processing; fechaRecepcion counts whole seconds
    const sentAt = Date.now();
    const secondTrackId = await queued(a, submission(signedEcf(emisor, { encf: first.encf })));
    const query = { tenantId: TENANT, environment: 'TesteCF' as const, rncEmisor: EMISOR_RNC, encf: first.encf };
    const found = await a.findSubmissions(query, signal());
    // The second is in process for PROCESSING_MS, then refused (its eNCF was already accepted). On a
    // loaded machine the query may come that late; which one it must see follows from the clock.
    const answeredAt = Date.now();
    const expected = answeredAt - sentAt < PROCESSING_MS ? ['En Proceso'] : ['En Proceso', 'Rechazado'];
    assert.deepEqual(found.map((f) => f.trackId), [firstTrackId, secondTrackId]);
    assert.equal(found[0]?.estado, 'Aceptado');
    assert.ok(expected.includes(found[1]?.estado ?? ''), `the second is ${found[1]?.estado}; expected ${expected.join(' or ')}`);
    for (const f of found) assert.ok(f.receivedAt !== null && Math.abs(f.receivedAt.getTime() - Date.now()) < 5_000, `receivedAt ${f.receivedAt?.toISOString()} is now`);
    assert.ok((found[0]?.receivedAt?.getTime() ?? 0) < (found[1]?.receivedAt?.getTime() ?? 0));
    assert.deepEqual(await a.findSubmissions({ ...query, encf: 'E310000000000' }, signal()), []);
    assert.deepEqual(await a.findSubmissions({ ...query, environment: 'eCF' }, signal()), [], 'environments are apart');
  });

  it('maps an unknown trackId to not-found, with DGII\'s code and message', async () => {
    const { authority: a } = authority();
    assert.deepEqual(await a.status({ tenantId: TENANT, environment: 'TesteCF', trackId: '00000000-0000-0000-0000-000000000000' }, signal()), {
      kind: 'not-found',
      dgiiCode: '0',
      dgiiMessage: 'No se encontró el trackId',
    });
  });

  it('finds a summary with Consulta RFCE by eNCF and security code, for its sender only', async () => {
    const { authority: a } = authority();
    const before = sim.simulator.counters().summaryQueries;
    const { ecfXml, rfceXml, encf } = signedRfce(emisor);
    await a.submit(submission({ xml: ecfXml, encf }, { tipo: 32, signedRfceXml: rfceXml }), signal());
    const code = securityCodeOf(ecfXml);
    const q = { tenantId: TENANT, environment: 'TesteCF' as const, rncEmisor: EMISOR_RNC, encf, securityCode: code };
    assert.deepEqual(await a.summaryStatus(q, signal()), { kind: 'final', verdict: { estado: 'aceptado', dgiiCode: '0', dgiiMessage: 'Aceptado', secuenciaUtilizada: true } });
    const otherCode = `${code[0] === 'A' ? 'B' : 'A'}${code.slice(1)}`;
    for (const miss of [{ ...q, securityCode: otherCode }, { ...q, encf: nextEncf(32) }, { ...q, tenantId: OTHER_TENANT }, { ...q, environment: 'CerteCF' as const }]) {
      const status = await a.summaryStatus(miss, signal());
      assert.equal(status.kind, 'not-found', JSON.stringify(miss));
    }
    assert.equal(sim.simulator.counters().summaryQueries - before, 5);
  });

  it('keeps an accepted summary accepted when the same eNCF is summarised again and rejected', async () => {
    const { authority: a } = authority();
    const first = signedRfce(emisor);
    await a.submit(submission({ xml: first.ecfXml, encf: first.encf }, { tipo: 32, signedRfceXml: first.rfceXml }), signal());
    const again = signedRfce(emisor, { encf: first.encf, nombreComercial: 'Otro nombre' });
    const second = await a.submit(submission({ xml: again.ecfXml, encf: first.encf }, { tipo: 32, signedRfceXml: again.rfceXml }), signal());
    assert.equal(second.kind === 'final' && second.verdict.estado, 'rechazado');
    const q = { tenantId: TENANT, environment: 'TesteCF' as const, rncEmisor: EMISOR_RNC, encf: first.encf, securityCode: securityCodeOf(first.ecfXml) };
    assert.equal((await a.summaryStatus(q, signal())).kind, 'final');
    assert.equal((await a.summaryStatus({ ...q, securityCode: securityCodeOf(again.ecfXml) }, signal())).kind, 'not-found');
  });

  it('fails permanently, without calling DGII, for a tenant with no certificate', async () => {
    const { authority: a } = authority();
    const before = sim.simulator.counters().seedsIssued;
    await assert.rejects(a.submit(submission(signedEcf(emisor), { tenantId: NO_CERT_TENANT }), signal()), (err: unknown) => err instanceof PermanentAuthorityError && err.message === NO_CERTIFICATE_MESSAGE);
    assert.equal(sim.simulator.counters().seedsIssued, before);
  });

  it('fails permanently when DGII refuses the certificate', async () => {
    const expired = certs.make(EMISOR_SUBJECT, { days: -1 });
    const client = sim.client({ [TENANT]: expired });
    await assert.rejects(client.token(TENANT, 'TesteCF', signal()), (err: unknown) => err instanceof PermanentAuthorityError && /HTTP 401.*venció/.test(err.message));
  });
});

describe('DGII date-times', () => {
  it('parseDgiiDateTime reads dd-MM-yyyy HH:mm:ss as Dominican time and ISO 8601 with or without an offset', () => {
    const instant = new Date('2025-03-15T14:07:09Z');
    assert.deepEqual(parseDgiiDateTime('15-03-2025 10:07:09'), instant);
    assert.deepEqual(parseDgiiDateTime(formatFechaHoraFirma(instant)), instant, 'the inverse of formatFechaHoraFirma');
    assert.deepEqual(parseDgiiDateTime(' 2025-03-15T10:07:09 '), instant, 'no offset: Dominican time');
    assert.deepEqual(parseDgiiDateTime('2025-03-15T10:07:09.250-04:00'), new Date('2025-03-15T14:07:09.250Z'));
    assert.deepEqual(parseDgiiDateTime('2025-03-15T14:07:09Z'), instant);
    assert.deepEqual(parseDgiiDateTime('2025-03-15T15:07:09+0100'), instant);
  });

  it('parseDgiiDateTime answers null for text that is not a date-time, or a date that does not exist', () => {
    for (const text of ['', 'ayer', '15/03/2025 10:07:09', '2025-03-15', '31-02-2025 10:00:00', '15-03-2025 24:00:00', '2025-13-01T00:00:00Z']) {
      assert.equal(parseDgiiDateTime(text), null, text);
    }
  });
});

describe('token lifetime', () => {
  it('renews a token shortly before DGII said it expires, without waiting for a 401', async () => {
    const shortLived = await startSimulator({ processingMs: 0, tokenTtlMs: 1_500 });
    try {
      const client = shortLived.client({ [TENANT]: emisor });
      const first = await client.token(TENANT, 'TesteCF', signal());
      assert.equal(await client.token(TENANT, 'TesteCF', signal()), first);
      await sleep(1_400); // past 1500 − 150 (a tenth of the lifetime), before the server expires it
      const second = await client.token(TENANT, 'TesteCF', signal());
      assert.notEqual(second, first);
      assert.equal(shortLived.simulator.counters().tokensIssued, 2);
    } finally {
      await shortLived.simulator.close();
    }
  });

  it('measures the lifetime as expira − expedido, less a margin of at most a minute', () => {
    assert.equal(usableLifetimeMs({ token: 't', expedido: '2022-12-11T01:58:56Z', expira: '2022-12-11T02:58:56Z' }, 0), 3_540_000);
    assert.equal(usableLifetimeMs({ token: 't', expedido: '2022-12-11T01:58:56Z', expira: '2022-12-11T01:59:06Z' }, 0), 9_000);
    assert.equal(usableLifetimeMs({ token: 't', expedido: '', expira: 'mañana' }, 0), 3_540_000, 'unreadable instants: DGII’s documented hour');
  });

  it('shares one authentication among concurrent callers and discards only the token it is told about', async () => {
    let clock = 0;
    const cache = new TokenCache(() => clock);
    let obtained = 0;
    const obtain = async () => {
      obtained++;
      await sleep(10);
      return { token: `t${obtained}`, expedido: '2025-01-01T00:00:00Z', expira: '2025-01-01T01:00:00Z' };
    };
    const tokens = await Promise.all([cache.get('k', obtain), cache.get('k', obtain), cache.get('k', obtain)]);
    assert.deepEqual(tokens, ['t1', 't1', 't1']);
    cache.discard('k', 'stale');
    assert.equal(await cache.get('k', obtain), 't1');
    cache.discard('k', 't1');
    assert.equal(await cache.get('k', obtain), 't2');
    clock = 3_540_000;
    assert.equal(await cache.get('k', obtain), 't3', 'renewed once the usable lifetime is over');
  });

  it('lets a caller whose signal aborts stop waiting without failing the others sharing the authentication', async () => {
    const cache = new TokenCache();
    let release: (() => void) | undefined;
    let obtained = 0;
    const obtain = async () => {
      obtained++;
      await new Promise<void>((resolve) => (release = resolve));
      return { token: 'shared', expedido: '2025-01-01T00:00:00Z', expira: '2025-01-01T01:00:00Z' };
    };
    const leaving = new AbortController();
    const first = cache.get('k', obtain, leaving.signal);
    const second = cache.get('k', obtain, new AbortController().signal);
    leaving.abort(new Error('lease lost'));
    await assert.rejects(first, /lease lost/);
    release?.();
    assert.equal(await second, 'shared');
    assert.equal(obtained, 1, 'one authentication for both');
    assert.equal(await cache.get('k', obtain, AbortSignal.abort()).catch(() => 'aborted'), 'shared', 'a fresh token is served from the cache');
  });
});

describe('DgiiClient failures', () => {
  it('turns 5xx into TransientAuthorityError and other 4xx into PermanentAuthorityError with DGII’s text', async () => {
    const { authority: a } = authority();
    await queued(a, submission(signedEcf(emisor)));
    sim.simulator.injectFault({ service: 'recepcion', status: 503 });
    await assert.rejects(a.submit(submission(signedEcf(emisor)), signal()), (err: unknown) => err instanceof TransientAuthorityError && /HTTP 503/.test(err.message));
    sim.simulator.injectFault({ service: 'estado', status: 500 });
    await assert.rejects(a.status({ tenantId: TENANT, environment: 'TesteCF', trackId: 'x' }, signal()), TransientAuthorityError);
    sim.simulator.injectFault({ service: 'recepcion', status: 404 });
    await assert.rejects(a.submit(submission(signedEcf(emisor)), signal()), (err: unknown) => err instanceof PermanentAuthorityError && /HTTP 404.*Fallo simulado/.test(err.message));
    sim.simulator.injectFault({ service: 'recepcion', status: 429 });
    await assert.rejects(a.submit(submission(signedEcf(emisor)), signal()), TransientAuthorityError);
  });

  it('times out a slow answer with TransientAuthorityError', async () => {
    // A second is plenty for the normal calls (sign-in, a first upload) even on a busy machine.
    const { authority: a } = authority({ timeoutMs: 1000 });
    await queued(a, submission(signedEcf(emisor)));
    sim.simulator.injectFault({ service: 'recepcion', delayMs: 5000 });
    const started = Date.now();
    await assert.rejects(a.submit(submission(signedEcf(emisor)), signal()), (err: unknown) => err instanceof TransientAuthorityError && /did not answer within 1000 ms/.test(err.message));
    // Long before the answer would have come, with room for a busy machine's timer lag.
    assert.ok(Date.now() - started < 3500, `gave up after ${Date.now() - started} ms`);
  });

  it('stops when the caller aborts, with TransientAuthorityError', async () => {
    const { authority: a } = authority();
    await queued(a, submission(signedEcf(emisor)));
    sim.simulator.injectFault({ service: 'recepcion', delayMs: 400 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(a.submit(submission(signedEcf(emisor)), controller.signal), (err: unknown) => err instanceof TransientAuthorityError && /Cancelled/.test(err.message));
  });

  it('reports a refused connection as TransientAuthorityError', async () => {
    const gone = await misbehaving((_req, res) => res.end());
    await gone.close();
    await assert.rejects(clientOf(gone.url).requestSeed('TesteCF', signal()), (err: unknown) => err instanceof TransientAuthorityError && /ECONNREFUSED/.test(err.message));
  });

  it('retries a GET once at once after a reset connection', async () => {
    const server = await misbehaving((req, res, n) => {
      if (n === 1) req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'application/xml' }).end('<SemillaModel><valor>v</valor></SemillaModel>');
    });
    try {
      assert.match(await clientOf(server.url).requestSeed('TesteCF', signal()), /<valor>v<\/valor>/);
      assert.equal(server.requests(), 2);
    } finally {
      await server.close();
    }
  });

  it('does not resend an upload after a reset connection (DGII may have received it)', async () => {
    const server = await fakeDgii({ upload: (req) => req.socket.destroy() });
    try {
      await assert.rejects(clientOf(server.url).sendEcf(TENANT, 'TesteCF', { fileName: 'a.xml', xml: '<a/>' }, signal()), TransientAuthorityError);
      assert.equal(server.requests(), 3, 'seed, validarsemilla, one upload');
    } finally {
      await server.close();
    }
  });

  it('treats oversized, unsignable and shapeless answers as transient', async () => {
    const big = await fakeDgii({ seed: (_req, res) => res.writeHead(200).end('x'.repeat(2048)) });
    const shapeless = await fakeDgii({ estado: (_req, res) => json(res, 200, { hola: 1 }) });
    try {
      const limited = new DgiiClient({ ...optionsOf(big.url), maxAnswerBytes: 1024 });
      await assert.rejects(limited.requestSeed('TesteCF', signal()), (err: unknown) => err instanceof TransientAuthorityError && /larger than 1024 bytes/.test(err.message));
      await assert.rejects(clientOf(big.url).token(TENANT, 'TesteCF', signal()), (err: unknown) => err instanceof TransientAuthorityError && /seed that could not be signed/.test(err.message));
      await assert.rejects(clientOf(shapeless.url).trackStatus(TENANT, 'TesteCF', 'x', signal()), (err: unknown) => err instanceof TransientAuthorityError && /carries no status/.test(err.message));
    } finally {
      await big.close();
      await shapeless.close();
    }
  });

  it('caps an answer sent without a length while it is read, and never follows a redirect', async () => {
    let redirected = 0;
    const server = await misbehaving((req, res) => {
      if (req.url?.startsWith('/elsewhere') === true) {
        redirected++;
        res.writeHead(200).end('<SemillaModel><valor>v</valor></SemillaModel>');
      } else if (req.url?.startsWith('/moved') === true) res.writeHead(302, { location: '/elsewhere/testecf/autenticacion/api/autenticacion/semilla' }).end();
      else {
        // Chunked: no content-length to refuse it by.
        res.writeHead(200, { 'content-type': 'application/xml' });
        for (let i = 0; i < 8; i++) res.write('x'.repeat(512));
        res.end();
      }
    });
    try {
      const limited = new DgiiClient({ ...optionsOf(server.url), maxAnswerBytes: 1024 });
      await assert.rejects(limited.requestSeed('TesteCF', signal()), (err: unknown) => err instanceof TransientAuthorityError && /larger than 1024 bytes/.test(err.message));
      await assert.rejects(clientOf(`${server.url}/moved`).requestSeed('TesteCF', signal()), (err: unknown) => err instanceof TransientAuthorityError && /redirect \(HTTP 302\)/.test(err.message));
      assert.equal(redirected, 0);
    } finally {
      await server.close();
    }
  });

  it('surfaces the error text of a recepción answer that carries no trackId', async () => {
    const server = await fakeDgii({ upload: (_req, res) => json(res, 200, { trackId: null, error: 'Error de validación', mensaje: 'El archivo está vacío' }) });
    try {
      await assert.rejects(
        clientOf(server.url).sendEcf(TENANT, 'TesteCF', { fileName: 'a.xml', xml: '<a/>' }, signal()),
        (err: unknown) => err instanceof PermanentAuthorityError && /El archivo está vacío/.test(err.message),
      );
    } finally {
      await server.close();
    }
  });

  it('reads a Consulta TrackIds answer in any capitals and with either date format, oldest first', async () => {
    let asked = '';
    const server = await fakeDgii({
      trackIds: (req, res) => {
        asked = req.url ?? '';
        json(res, 200, [
          { TrackId: 'b', Estado: 'Rechazado', FechaRecepcion: '2025-03-15T10:00:05-04:00' },
          { TRACKID: 'a', ESTADO: 'Aceptado', fecharecepcion: '15-03-2025 10:00:00' },
          { trackId: 'c', estado: 'En Proceso', fechaRecepcion: '2025-03-15T14:00:09.5Z' },
        ]);
      },
    });
    try {
      const a = new DgiiAuthority(clientOf(server.url));
      const found = await a.findSubmissions({ tenantId: TENANT, environment: 'TesteCF', rncEmisor: EMISOR_RNC, encf: 'E310000000123' }, signal());
      assert.equal(asked, `/testecf/consultatrackids/api/trackids/consulta?rncemisor=${EMISOR_RNC}&encf=E310000000123`);
      assert.deepEqual(found, [
        { trackId: 'a', estado: 'Aceptado', receivedAt: new Date('2025-03-15T14:00:00Z') },
        { trackId: 'b', estado: 'Rechazado', receivedAt: new Date('2025-03-15T14:00:05Z') },
        { trackId: 'c', estado: 'En Proceso', receivedAt: new Date('2025-03-15T14:00:09.500Z') },
      ]);
    } finally {
      await server.close();
    }
  });

  it('keeps DGII’s order when a Consulta TrackIds entry has no readable date, and reads an empty list as none', async () => {
    const answers: unknown[] = [[{ trackId: 'x', fechaRecepcion: 'ayer' }, { trackId: 'y', fechaRecepcion: '15-03-2025 10:00:00' }], []];
    const server = await fakeDgii({ trackIds: (_req, res) => json(res, 200, answers.shift()) });
    try {
      const a = new DgiiAuthority(clientOf(server.url));
      const query = { tenantId: TENANT, environment: 'TesteCF' as const, rncEmisor: EMISOR_RNC, encf: 'E310000000123' };
      assert.deepEqual((await a.findSubmissions(query, signal())).map((f) => [f.trackId, f.estado, f.receivedAt]), [['x', null, null], ['y', null, new Date('2025-03-15T14:00:00Z')]]);
      assert.deepEqual(await a.findSubmissions(query, signal()), []);
    } finally {
      await server.close();
    }
  });

  it('reports a malformed Consulta TrackIds answer as transient, saying what is wrong, and a refusal as permanent', async () => {
    const answers: Respond[] = [
      (_req, res) => json(res, 200, { trackId: 'a' }),
      (_req, res) => json(res, 200, [{ trackId: 'a' }, { estado: 'Aceptado' }]),
      (_req, res) => json(res, 200, ['a']),
      (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>mantenimiento</html>'),
      (_req, res) => json(res, 403, { mensaje: 'No autorizado para consultar este RNC' }),
      (_req, res) => json(res, 502, { mensaje: 'Bad gateway' }),
    ];
    const server = await fakeDgii({ trackIds: (req, res) => (answers.shift() as Respond)(req, res) });
    try {
      const client = clientOf(server.url);
      const ask = () => client.trackIds(TENANT, 'TesteCF', EMISOR_RNC, 'E310000000123', signal());
      const transient = (pattern: RegExp) => (err: unknown) => err instanceof TransientAuthorityError && pattern.test(err.message);
      await assert.rejects(ask(), transient(/trackIds of E310000000123 is not a list of submissions: it is an object, not a list$/));
      await assert.rejects(ask(), transient(/is not a list of submissions: entry 2 has no trackId$/));
      await assert.rejects(ask(), transient(/is not a list of submissions: entry 1 is not an object$/));
      await assert.rejects(ask(), transient(/is not a list of submissions: it is not JSON$/));
      await assert.rejects(ask(), (err: unknown) => err instanceof PermanentAuthorityError && /HTTP 403 while querying the trackIds of E310000000123: No autorizado/.test(err.message));
      await assert.rejects(ask(), transient(/HTTP 502/));
    } finally {
      await server.close();
    }
  });

  it('asks Consulta RFCE on the fc host with DGII\'s parameter names, and reads codigo sent as text', async () => {
    let asked = '';
    const server = await fakeDgii({
      rfceStatus: (req, res) => {
        asked = req.url ?? '';
        json(res, 200, { rnc: EMISOR_RNC, encf: 'E320000000001', secuenciaUtilizada: true, codigo: '2', estado: 'Rechazado', mensajes: [{ valor: 'Monto inválido', codigo: 12 }] });
      },
    });
    try {
      const a = new DgiiAuthority(clientOf(server.url));
      const status = await a.summaryStatus({ tenantId: TENANT, environment: 'TesteCF', rncEmisor: EMISOR_RNC, encf: 'E320000000001', securityCode: 'a+B/c9' }, signal());
      assert.equal(asked, `/fc/testecf/consultarfce/api/Consultas/Consulta?RNC_Emisor=${EMISOR_RNC}&ENCF=E320000000001&Cod_Seguridad_eCF=a%2BB%2Fc9`);
      assert.deepEqual(status, { kind: 'final', verdict: { estado: 'rechazado', dgiiCode: '12', dgiiMessage: 'Monto inválido', secuenciaUtilizada: true } });
    } finally {
      await server.close();
    }
  });

  it('reads DGII’s mensajes list, or a bare string, as the explanation of a 400', async () => {
    const server = await fakeDgii({ upload: (_req, res) => json(res, 400, { mensajes: [{ valor: 'Primero', codigo: 1 }, { valor: 'Segundo', codigo: 2 }] }), estado: (_req, res) => json(res, 400, 'El trackId no es válido') });
    try {
      const client = clientOf(server.url);
      await assert.rejects(client.sendEcf(TENANT, 'TesteCF', { fileName: 'a.xml', xml: '<a/>' }, signal()), (err: unknown) => err instanceof PermanentAuthorityError && /: Primero; Segundo$/.test(err.message));
      await assert.rejects(client.trackStatus(TENANT, 'TesteCF', 'x', signal()), (err: unknown) => err instanceof PermanentAuthorityError && /: El trackId no es válido$/.test(err.message));
    } finally {
      await server.close();
    }
  });
});

type Respond = (req: IncomingMessage, res: ServerResponse) => void;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** DGII answering sensibly except where `overrides` says otherwise. */
function fakeDgii(overrides: { seed?: Respond; upload?: Respond; estado?: Respond; trackIds?: Respond; rfceStatus?: Respond }) {
  return misbehaving((req, res) => {
    const url = req.url ?? '';
    if (url.endsWith('/semilla')) (overrides.seed ?? ((_q, r) => r.writeHead(200).end('<SemillaModel><valor>v</valor><fecha>f</fecha></SemillaModel>')))(req, res);
    else if (url.endsWith('/validarsemilla')) json(res, 200, { token: 't', expira: '2099-01-01T01:00:00Z', expedido: '2099-01-01T00:00:00Z' });
    else if (url.includes('/estado')) (overrides.estado ?? ((_q, r) => json(r, 200, { codigo: 3, estado: 'En Proceso' })))(req, res);
    else if (url.includes('/consultatrackids/')) (overrides.trackIds ?? ((_q, r) => json(r, 200, [])))(req, res);
    else if (url.includes('/consultarfce/')) (overrides.rfceStatus ?? ((_q, r) => json(r, 200, { codigo: '0', estado: 'No encontrado', mensajes: [] })))(req, res);
    else (overrides.upload ?? ((_q, r) => json(r, 200, { trackId: 'abc' })))(req, res);
  });
}

function optionsOf(url: string) {
  const urls = (prefix: string) => ({ TesteCF: `${url}${prefix}/testecf`, CerteCF: `${url}${prefix}/certecf`, eCF: `${url}${prefix}/ecf` }) satisfies Record<Environment, string>;
  return { baseUrls: urls(''), fcBaseUrls: urls('/fc'), timeoutMs: 2_000, credentials: async () => emisor };
}
