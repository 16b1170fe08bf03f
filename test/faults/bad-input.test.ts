import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
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
import { waitFor } from '../helpers/wait.ts';

// 10,000 malformed requests from a fixed seed against a real service process: no 5xx, no
// hang, no crash, no error logged, memory flat (heap, external memory, RSS and open files);
// and slow clients trickling headers or a body are cut by the timeouts while everyone else
// is served.

const SEED = 0x0ecf_5eed;
const REQUESTS = 10_000;
/** The run is sent in phases; between two, with nothing in flight, the heap is measured. */
const PHASE = 1_250;
const CONCURRENCY = 16;
/**
 * An answer later than this is a hang. Not a latency target: a certificate upload, even of
 * garbage, boots a parser thread (~1 s on a busy 2-core machine, two at a time, up to 20
 * queued), so a burst of them behind each other legitimately takes well over 10 s there.
 */
const HANG_MS = 60_000;
const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 3_000;
/**
 * Growth allowed over the second half of the run (5,000 requests), measured after a full
 * garbage collection (helpers/gc-probe.ts) with no request in flight. Without the forced
 * collection the heap seen by /metrics swings between ~50 and ~165 MiB in this run, so only
 * a bound of more than 100 MiB would hold; after it, what is left is what the process keeps.
 * A leak of 1 KiB per request would add ~5 MiB here.
 */
const HEAP_GROWTH_BOUND = 4 * 1024 * 1024;
/**
 * Growth allowed of memory held outside the JS heap for JS objects (Buffers, zlib, crypto): the
 * run's end over the first half's peak. A single probe may also catch buffers still held for a
 * moment: runs of 2026-11-27 saw one probe of the second half at 18–26 MiB against a first half
 * of 14–17 MiB, on the code before that day's changes as after them, and the next probe back at
 * the first half's level. So a probe's peak is held only to EXTERNAL_PEAK_MARGIN, and growth to
 * this bound at the end, where a leak of 1 KiB per request would show as 5 MiB.
 */
const EXTERNAL_GROWTH_BOUND = 4 * 1024 * 1024;
const EXTERNAL_PEAK_MARGIN = 16 * 1024 * 1024;
/**
 * RSS also counts memory the allocator and V8 keep reserved after freeing it, and give back at
 * their own pace. Measured in this run with the heap, external memory and file descriptors
 * flat: glibc's main arena ([heap] in smaps) goes 24 → 52 → 24 → 53 MiB from one sample to
 * the next, depending on whether its top chunk happens to be free when it could be trimmed,
 * and V8's pool of freed pages grows in steps of 20–30 MiB. Over the whole run RSS rises by
 * 80–150 MiB and levels off; the second half's peak was up to 40 MiB above the first half's
 * (on the same code, one run in three). What a leak does that this noise does not is climb
 * past the earlier peak for good, so the second half's peak is held to the first half's
 * (after the first phase, which loads code and fills caches) plus this margin: a leak that
 * escapes the heap, external and descriptor checks above and below (native memory V8 is not
 * told of) shows here from about 12 KiB per request.
 */
const RSS_PEAK_MARGIN = 64 * 1024 * 1024;
/** File descriptors the second half may hold beyond the first half's peak: a pooled connection or two. */
const FD_MARGIN = 4;
/** Kinds of abuse that are not HTTP at all: Node's parser may close such a connection without an answer. */
const NOT_HTTP = new Set(['random bytes', 'random request line', 'invalid headers', 'chunked garbage', 'bad content-length']);
/** The trickling clients must have been cut by this much after the timeout; they would otherwise go on forever. */
const CUT_MARGIN_MS = 5_000;
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
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    RATE_LIMIT_RECEIVER_PER_MINUTE: '1000000',
    RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE: '1000000',
    WEBHOOK_TIMEOUT_MS: '1000',
    NODE_OPTIONS: `--import ${fileURLToPath(new URL('./helpers/gc-probe.ts', import.meta.url))}`,
  }));
  // The dashboard reads its assets on first use: done here, so that the "no hang" bound below
  // measures answers, not start-up.
  assert.equal((await fetch(`${instance.url}/dashboard/main.js`)).status, 200);
  const tenant = await newTenantWithCertificate(instance.url);
  const bearer = { authorization: `Bearer ${tenant.accessToken}` };
  await call(instance.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: receiver.url }, headers: bearer });
  const emitted = await call(instance.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(tenant.rnc), headers: { 'x-api-key': tenant.apiKey } });
  // Printouts render on a worker thread that starts with the first one (ecf/print/render-pool.ts):
  // a draft's is rendered here (documents are never signed with workers off), so that the thread's
  // memory is in the baseline, not counted as growth when the fuzz first has a PDF drawn.
  const draft = await call(instance.url, 'POST', '/TesteCF/documentos-ecf/borrador/pdf', { json: ecfFor(tenant.rnc), headers: { 'x-api-key': tenant.apiKey } });
  assert.equal(draft.status, 200, draft.text.slice(0, 300));
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

interface Probe { heapUsed: number; external: number; rss: number; fds: number }

/** Heap, external memory, RSS and open files of the service after a full collection (helpers/gc-probe.ts). */
async function memoryAfterGc(): Promise<Probe> {
  const probes = () => instance.process.output.join('').match(/\{"gcProbe":\d+,[^}\n]*\}/g) ?? [];
  const seen = probes().length;
  instance.process.child.kill('SIGUSR2');
  const line = await waitFor(async () => probes()[seen], 10_000, 'the service reporting its heap after a full collection');
  return JSON.parse(line) as Probe;
}

function errorLines(): string[] {
  return instance.process.output.join('').split('\n').filter((l) => l.includes('"level":"error"'));
}

test('10,000 malformed requests: no 5xx, no hang, no crash, no error logged, memory flat', async (t) => {
  const rng = new Prng(SEED);
  const port = Number(new URL(instance.url).port);
  const outcomes: Outcome[] = [];
  const memory: ({ after: number } & Probe)[] = [{ after: 0, ...(await memoryAfterGc()) }];
  let next = 0;
  const started = Date.now();
  for (let end = PHASE; end <= REQUESTS; end += PHASE) {
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const index = next++;
        if (index >= end) return;
        // Drawn in index order: the sequence depends on the seed only, not on timing.
        const r = fuzzRequest(rng, ctx);
        const result = await sendRaw(port, r.chunks, { timeoutMs: HANG_MS, bodyless: r.bodyless });
        outcomes.push({ ...result, index, kind: r.kind, request: Buffer.concat(r.chunks).subarray(0, 160).toString('latin1') });
      }
    }));
    next = end;
    memory.push({ after: end, ...(await memoryAfterGc()) });
  }
  const elapsed = Date.now() - started;

  const describe = (o: Outcome) => `#${o.index} ${o.kind}: ${JSON.stringify(o.request)} → ${JSON.stringify(o.head.slice(0, 200))}`;
  const serverErrors = outcomes.filter((o) => o.status !== null && o.status >= 500);
  assert.deepEqual(serverErrors.map(describe), [], `no 5xx; the service logged: ${errorLines().slice(0, 5).join('\n')}`);
  assert.deepEqual(errorLines().slice(0, 5), [], 'the service logged no error');
  const hung = outcomes.filter((o) => o.timedOut);
  assert.deepEqual(hung.map(describe), [], `every request was answered or closed within ${HANG_MS / 1000} s`);
  // A closed connection without an answer would also be what an internal error destroying the
  // socket looks like: only bytes that are not HTTP may get it.
  const unanswered = outcomes.filter((o) => o.status === null && !NOT_HTTP.has(o.kind));
  assert.deepEqual(unanswered.map(describe), [], 'every request that is HTTP gets an HTTP answer');
  assert.equal(outcomes.length, REQUESTS);

  assert.equal(instance.process.child.exitCode, null, 'the process is alive');
  const health = await call(instance.url, 'GET', '/healthz');
  assert.equal(health.status, 200);
  const table = memory.map((m) => `${m.after}: heap ${mib(m.heapUsed)} MiB, external ${mib(m.external)} MiB, RSS ${mib(m.rss)} MiB, ${m.fds} fds`).join('; ');
  const half = memory.filter((m) => m.after >= REQUESTS / 2);
  const first = half[0]!;
  const heapPeak = Math.max(...half.map((m) => m.heapUsed));
  assert.ok(heapPeak - first.heapUsed < HEAP_GROWTH_BOUND, `heap after a full GC grows less than ${mib(HEAP_GROWTH_BOUND)} MiB over the second half (${table})`);
  const firstHalf = memory.filter((m) => m.after >= PHASE && m.after <= REQUESTS / 2);
  const externalPeak = (ms: typeof memory) => Math.max(...ms.map((m) => m.external));
  const last = memory.at(-1)!;
  assert.ok(last.external < externalPeak(firstHalf) + EXTERNAL_GROWTH_BOUND, `external memory after a full GC: the run's end within ${mib(EXTERNAL_GROWTH_BOUND)} MiB of the first half's peak (${table})`);
  assert.ok(externalPeak(half) < externalPeak(firstHalf) + EXTERNAL_PEAK_MARGIN, `external memory after a full GC: the second half's peak within ${mib(EXTERNAL_PEAK_MARGIN)} MiB of the first half's (${table})`);
  const fdsPeak = (ms: typeof memory) => Math.max(...ms.map((m) => m.fds));
  assert.ok(fdsPeak(half) <= fdsPeak(firstHalf) + FD_MARGIN, `no file descriptor is left open: the second half's peak within ${FD_MARGIN} of the first half's (${table})`);
  const rssPeak = (ms: typeof memory) => Math.max(...ms.map((m) => m.rss));
  assert.ok(rssPeak(half) < rssPeak(firstHalf) + RSS_PEAK_MARGIN, `RSS peak of the second half within ${mib(RSS_PEAK_MARGIN)} MiB of the first half's (${table})`);

  const byStatus = new Map<string, number>();
  for (const o of outcomes) byStatus.set(String(o.status ?? 'closed'), (byStatus.get(String(o.status ?? 'closed')) ?? 0) + 1);
  t.diagnostic(`${REQUESTS} requests in ${elapsed} ms; statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort()))}; after a full GC: ${table}`);
});

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** Sends GET /healthz in a loop until `done` settles; the end time of each answer. */
async function serveUntil(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.then(() => (finished = true));
  const answeredAt: number[] = [];
  while (!finished) {
    const res = await call(instance.url, 'GET', '/healthz');
    assert.equal(res.status, 200);
    answeredAt.push(Date.now());
  }
  return answeredAt;
}

test('slow clients trickling headers are cut by the headers timeout while others are served', async () => {
  const { port } = new URL(instance.url);
  const slow = Array.from({ length: 20 }, () => trickle(Number(port), 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
  const cuts = Promise.all(slow.map((s) => s.closed));
  const served = await serveUntil(cuts);
  const closed = await cuts;
  for (const s of slow) s.stop();
  for (const c of closed) {
    assert.ok(c.afterMs >= HEADERS_TIMEOUT_MS - 100, `closed after ${c.afterMs} ms, not before the ${HEADERS_TIMEOUT_MS} ms timeout`);
    assert.ok(c.afterMs <= HEADERS_TIMEOUT_MS + CUT_MARGIN_MS, `closed after ${c.afterMs} ms (timeout ${HEADERS_TIMEOUT_MS} ms)`);
    assert.ok(c.status === null || c.status === 408, `answered ${c.status} when cut`);
  }
  const firstCut = Math.min(...closed.map((c) => c.at));
  const meanwhile = served.filter((at) => at < firstCut).length;
  assert.ok(meanwhile >= 3, `others were served while all 20 trickling connections were open (${meanwhile} requests)`);
});

test('a slow client trickling its body is cut by the request timeout while others are served', async () => {
  const { port } = new URL(instance.url);
  // A key of its own: the fuzzing before may have made the tenant's first key read-only (PATCH /api/keys/{id}).
  const made = await call(instance.url, 'POST', '/api/keys', { json: { name: 'trickle', environments: ['TesteCF'] }, headers: { authorization: `Bearer ${ctx.accessToken}` } });
  assert.equal(made.status, 201, made.text);
  const head = `POST /TesteCF/documentos-ecf HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${made.body.data.key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`;
  const slow = trickle(Number(port), head);
  const served = await serveUntil(slow.closed);
  const closed = await slow.closed;
  slow.stop();
  assert.ok(closed.afterMs >= REQUEST_TIMEOUT_MS - 100, `closed after ${closed.afterMs} ms, not before the ${REQUEST_TIMEOUT_MS} ms timeout`);
  assert.ok(closed.afterMs <= REQUEST_TIMEOUT_MS + CUT_MARGIN_MS, `closed after ${closed.afterMs} ms (timeout ${REQUEST_TIMEOUT_MS} ms)`);
  assert.equal(closed.status, 408, `answered ${closed.status ?? 'nothing'} when cut: ${closed.head}`);
  assert.match(closed.head, /"code":"REQUEST_TIMEOUT"/);
  assert.ok(served.filter((at) => at < closed.at).length >= 3, 'others were served while it trickled');
  assert.deepEqual(errorLines().slice(0, 5), [], 'the service logged no error');
});

interface Cut {
  /** When the server closed the connection, and how long after it was opened. */
  at: number;
  afterMs: number;
  /** Status of what the server wrote before closing, null if nothing. */
  status: number | null;
  head: string;
}

/** A connection that sends `start`, then one more byte every 100 ms, never finishing its request. */
function trickle(port: number, start: string): { closed: Promise<Cut>; stop(): void } {
  const socket: Socket = connect(port, '127.0.0.1');
  const opened = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let received = '';
  socket.on('connect', () => {
    socket.write(start);
    timer = setInterval(() => socket.writable && socket.write('a'), 100);
  });
  socket.on('error', () => {});
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  const closed = new Promise<Cut>((resolve) => socket.on('close', () => {
    clearInterval(timer);
    const at = Date.now();
    const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
    resolve({ at, afterMs: at - opened, status: status === undefined ? null : Number(status), head: received.slice(0, 300) });
  }));
  return { closed, stop: () => { clearInterval(timer); socket.destroy(); } };
}
