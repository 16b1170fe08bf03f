import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { newTenantWithCertificate } from '../helpers/certificates.ts';
import { ecfFor } from '../helpers/documents.ts';
import { call } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';
import { fuzzRequest, fuzzRoutes, type FuzzContext } from './helpers/malformed-requests.ts';
import { Prng } from './helpers/prng.ts';
import { sendRaw, type RawResult } from './helpers/raw-http.ts';

// 10,000 malformed requests from a fixed seed against a real service process: no 5xx, no
// hang, no crash, memory flat; and slow clients trickling headers are cut by the headers
// timeout while everyone else is served.

const SEED = 0x0ecf_5eed;
const REQUESTS = 10_000;
const WARM_UP = 3_000;
const CONCURRENCY = 16;
const HEADERS_TIMEOUT_MS = 1_000;
/** Growth of the child's RSS allowed between the end of the warm-up and the end of the run. */
const RSS_GROWTH_BOUND = 64 * 1024 * 1024;
// Passwords hash at SCRYPT_LOG_N=12 (testEnv), two at once with 100 allowed to wait: with
// 16 clients the queue never fills, so no 503 "too many sign-ins" is expected, or accepted.

let db: TestDatabase;
let receiver: Receiver;
let instance: Instance;
let ctx: FuzzContext;
before(async () => {
  db = await faultDatabase();
  receiver = await startReceiver();
  instance = await startInstance(await faultEnv(db.url, {
    WORKERS_ENABLED: 'false',
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: '3000',
    RATE_LIMIT_RECEIVER_PER_MINUTE: '1000000',
    WEBHOOK_TIMEOUT_MS: '1000',
  }));
  const tenant = await newTenantWithCertificate(instance.url);
  const bearer = { authorization: `Bearer ${tenant.accessToken}` };
  await call(instance.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: receiver.url }, headers: bearer });
  const emitted = await call(instance.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers: { 'x-api-key': tenant.apiKey } });
  const delivery = await call(instance.url, 'POST', '/api/webhooks/test', { json: {}, headers: bearer });
  const keys = await call(instance.url, 'GET', '/api/keys', { headers: bearer });
  const doc = await (await fetch(`${instance.url}/openapi.json`)).json() as Parameters<typeof fuzzRoutes>[0] & { components: { schemas: FuzzContext['components'] } };
  ctx = {
    routes: fuzzRoutes(doc),
    components: doc.components.schemas,
    apiKey: tenant.apiKey,
    accessToken: tenant.accessToken,
    rnc: tenant.rnc,
    ids: [emitted.body.data.internalTrackId, delivery.body.data.delivery.id, tenant.certificateId, ...keys.body.data.map((k: { id: string }) => k.id)],
  };
});
after(async () => {
  await stopAllInstances();
  await receiver?.close();
  await db?.close();
});

interface Outcome extends RawResult {
  index: number;
  kind: string;
  request: string;
}

test('10,000 malformed requests: no 5xx, no hang, no crash, memory flat', async (t) => {
  const rng = new Prng(SEED);
  const port = Number(new URL(instance.url).port);
  const outcomes: Outcome[] = [];
  let next = 0;
  let warmRss = 0;
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (;;) {
      const index = next++;
      if (index >= REQUESTS) return;
      // Drawn in index order: the sequence depends on the seed only, not on timing.
      const r = fuzzRequest(rng, ctx);
      const result = await sendRaw(port, r.chunks, { timeoutMs: 10_000, bodyless: r.bodyless });
      outcomes.push({ ...result, index, kind: r.kind, request: Buffer.concat(r.chunks).subarray(0, 160).toString('latin1') });
      if (index === WARM_UP) warmRss = await instance.rss();
    }
  }));
  const elapsed = Date.now() - started;
  const endRss = await instance.rss();

  const describe = (o: Outcome) => `#${o.index} ${o.kind}: ${JSON.stringify(o.request)} → ${JSON.stringify(o.head.slice(0, 200))}`;
  const serverErrors = outcomes.filter((o) => o.status !== null && o.status >= 500);
  const logged = instance.process.output.join('').split('\n').filter((l) => l.includes('"level":"error"')).slice(0, 5);
  assert.deepEqual(serverErrors.map(describe), [], `no 5xx; the service logged: ${logged.join('\n')}`);
  const hung = outcomes.filter((o) => o.timedOut);
  assert.deepEqual(hung.map(describe), [], 'every request was answered or closed within 10 s');
  // Only bytes that are not HTTP may be dropped without an answer.
  const unanswered = outcomes.filter((o) => o.status === null && !['random bytes', 'random request line', 'invalid headers', 'chunked garbage', 'bad content-length', 'huge header', 'duplicated headers', 'path traversal'].includes(o.kind));
  assert.deepEqual(unanswered.map(describe), [], 'well-formed requests always get an answer');
  assert.equal(outcomes.length, REQUESTS);

  assert.equal(instance.process.child.exitCode, null, 'the process is alive');
  const health = await call(instance.url, 'GET', '/healthz');
  assert.equal(health.status, 200);
  assert.ok(endRss - warmRss < RSS_GROWTH_BOUND, `RSS after warm-up ${mib(warmRss)} MiB, at the end ${mib(endRss)} MiB (bound +${mib(RSS_GROWTH_BOUND)} MiB)`);

  const byStatus = new Map<string, number>();
  for (const o of outcomes) byStatus.set(String(o.status ?? 'closed'), (byStatus.get(String(o.status ?? 'closed')) ?? 0) + 1);
  t.diagnostic(`${REQUESTS} requests in ${elapsed} ms; statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort()))}; RSS ${mib(warmRss)} → ${mib(endRss)} MiB`);
});

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

test('slow clients trickling headers are cut by the headers timeout while others are served', async () => {
  const { port } = new URL(instance.url);
  const slow = Array.from({ length: 20 }, () => trickle(Number(port)));
  const served: number[] = [];
  const serving = (async () => {
    const until = Date.now() + HEADERS_TIMEOUT_MS + 500;
    while (Date.now() < until) {
      const started = Date.now();
      const res = await call(instance.url, 'GET', '/healthz');
      assert.equal(res.status, 200);
      served.push(Date.now() - started);
    }
  })();
  const closedAfter = await Promise.all(slow.map((s) => s.closed));
  await serving;
  for (const s of slow) s.stop();
  const margin = 1_500;
  for (const ms of closedAfter) assert.ok(ms <= HEADERS_TIMEOUT_MS + margin, `a trickling connection was closed after ${ms} ms (timeout ${HEADERS_TIMEOUT_MS} ms + ${margin} ms)`);
  assert.ok(closedAfter.every((ms) => ms >= HEADERS_TIMEOUT_MS - 100), `none closed before the timeout (${Math.min(...closedAfter)} ms)`);
  assert.ok(served.length > 10 && Math.max(...served) < 500, `others were served meanwhile (${served.length} requests, slowest ${Math.max(...served)} ms)`);
});

/** A connection that sends a request line, then one header byte every 100 ms, never ending its headers. */
function trickle(port: number): { closed: Promise<number>; stop(): void } {
  const socket: Socket = connect(port, '127.0.0.1');
  const opened = Date.now();
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    timer = setInterval(() => socket.writable && socket.write('a'), 100);
  });
  socket.on('error', () => {});
  socket.resume();
  const closed = new Promise<number>((resolve) => socket.on('close', () => {
    clearInterval(timer);
    resolve(Date.now() - opened);
  }));
  return { closed, stop: () => { clearInterval(timer); socket.destroy(); } };
}
