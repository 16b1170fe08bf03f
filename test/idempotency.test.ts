import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../src/errors.ts';
import type { Reply, RequestContext } from '../src/http/types.ts';
import { canonicalJson } from '../src/idempotency/canonical.ts';
import { IdempotencyStore, type IdempotencyClaim } from '../src/idempotency/idempotent.ts';
import { createLogger } from '../src/log.ts';
import { maintenanceJob } from '../src/maintenance/purge.ts';
import { insertJob } from '../src/queue/queries.ts';
import { SequenceBatcher } from '../src/documents/numbering.ts';
import { call, newTenant } from './helpers/http.ts';
import { ecfFor, FAST_PIPELINE } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, WORKERS_ENABLED: 'false', IDEMPOTENCY_LEASE_SECONDS: '1' } });
});
after(() => t.close());

const emit = (key: string | undefined, apiKey: string, body: unknown, env = 'TesteCF') =>
  call(t.url, 'POST', `/${env}/documentos-ecf`, { json: body, headers: { 'x-api-key': apiKey, ...(key === undefined ? {} : { 'idempotency-key': key }) } });

async function documentCount(tenantId: number): Promise<number> {
  const [row] = await t.sql<{ n: number }[]>`select count(*)::int as n from documents where tenant_id = ${tenantId}`;
  return row?.n ?? -1;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the HTTP core hands a handler for POST /{env}/things with this key and body. */
function contextFor(tenantId: number, requestId: string, key: string, body: unknown): RequestContext {
  const raw = Buffer.from(JSON.stringify(body));
  return {
    requestId, method: 'POST', path: '/TesteCF/things', routePath: '/{env}/things', params: {}, query: new URLSearchParams(),
    headers: { 'idempotency-key': key, 'content-type': 'application/json' }, clientIp: '127.0.0.1', peerIp: '127.0.0.1', env: 'TesteCF',
    principal: { tenantId, userId: null, sessionId: null, apiKeyId: null }, body, rawBody: raw,
    signal: new AbortController().signal, log: createLogger('silent'), refundIpLimit: () => {}, takeLimit: () => {},
  } as RequestContext;
}

describe('Idempotency-Key', () => {
  test('the same key and body replays the stored answer with Idempotent-Replayed: true', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc);
    const first = await emit('order-1001', a.apiKey, body);
    assert.equal(first.status, 202);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    // Key order does not matter: the fingerprint is over canonical JSON.
    const reordered = JSON.parse(canonicalJson(body));
    const second = await emit('order-1001', a.apiKey, reordered);
    assert.equal(second.status, 202);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.text, first.text);
    assert.equal(second.headers.get('location'), first.headers.get('location'));
    assert.equal(await documentCount(a.tenantId), 1);
  });

  test('the same key with a different body is 409 IDEMPOTENCY_KEY_CONFLICT', async () => {
    const a = await newTenant(t.url);
    await emit('k-1', a.apiKey, ecfFor(a.rnc, 31));
    const res = await emit('k-1', a.apiKey, ecfFor(a.rnc, 32));
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'IDEMPOTENCY_KEY_CONFLICT');
    assert.equal(await documentCount(a.tenantId), 1);
  });

  test('a 409 ENCF_ALREADY_USED is stored and replayed too', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: 'E310000000007' }, Emisor: { RNCEmisor: a.rnc } } });
    assert.equal((await emit(undefined, a.apiKey, body)).status, 202);
    const first = await emit('dup-encf', a.apiKey, body);
    assert.equal(first.status, 409);
    assert.equal(first.body.error.code, 'ENCF_ALREADY_USED');
    const second = await emit('dup-encf', a.apiKey, body);
    assert.equal(second.status, 409);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.text, first.text);
  });

  test('a validation failure is stored and replayed too', async () => {
    const a = await newTenant(t.url);
    const first = await emit('bad-1', a.apiKey, { ECF: {} });
    assert.equal(first.status, 422);
    const second = await emit('bad-1', a.apiKey, { ECF: {} });
    assert.equal(second.status, 422);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.text, first.text);
  });

  test('100 concurrent requests with one key make exactly one document; the rest replay or get IN_USE', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc);
    const results = await Promise.all(Array.from({ length: 100 }, () => emit('burst', a.apiKey, body)));
    const created = results.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === null);
    const replays = results.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === 'true');
    const inUse = results.filter((r) => r.status === 409);
    assert.equal(created.length, 1);
    assert.equal(replays.length + inUse.length, 99);
    for (const r of inUse) {
      assert.equal(r.body.error.code, 'IDEMPOTENCY_KEY_IN_USE');
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
    }
    for (const r of replays) assert.equal(r.body.data.internalTrackId, created[0]?.body.data.internalTrackId);
    assert.equal(await documentCount(a.tenantId), 1);
  });

  test('a key is independent across tenants and environments', async () => {
    const a = await newTenant(t.url);
    const b = await newTenant(t.url);
    const ra = await emit('shared', a.apiKey, ecfFor(a.rnc));
    const rb = await emit('shared', b.apiKey, ecfFor(b.rnc));
    const re = await emit('shared', a.apiKey, ecfFor(a.rnc), 'CerteCF');
    for (const r of [ra, rb, re]) {
      assert.equal(r.status, 202);
      assert.equal(r.headers.get('idempotent-replayed'), null);
    }
    assert.equal(await documentCount(a.tenantId), 2);
  });

  test('a key outside 1–255 printable ASCII characters is 400 VALIDATION_ERROR', async () => {
    const a = await newTenant(t.url);
    for (const key of ['x'.repeat(256), 'ñandú', 'tab\there']) {
      const res = await emit(key, a.apiKey, ecfFor(a.rnc));
      assert.equal(res.status, 400, key);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
    assert.equal((await emit('x'.repeat(255), a.apiKey, ecfFor(a.rnc))).status, 202);
  });

  test('a key held by a request that died is taken over after its lease', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc);
    // What a crash leaves: a running claim with this request's fingerprint and no response.
    const { requestFingerprint } = await import('../src/idempotency/canonical.ts');
    const fingerprint = requestFingerprint('POST', '/TesteCF/documentos-ecf', JSON.parse(JSON.stringify(body)), Buffer.alloc(0));
    await t.sql`
      insert into idempotency_keys (tenant_id, environment, key, fingerprint, state, locked_until, expires_at)
      values (${a.tenantId}, 'TesteCF', 'crashed', ${fingerprint}, 'running', now() + interval '1 second', now() + interval '1 day')`;
    const during = await emit('crashed', a.apiKey, body);
    assert.equal(during.status, 409);
    assert.equal(during.body.error.code, 'IDEMPOTENCY_KEY_IN_USE');
    await new Promise((r) => setTimeout(r, 1100));
    const afterLease = await emit('crashed', a.apiKey, body);
    assert.equal(afterLease.status, 202);
    assert.equal(afterLease.headers.get('idempotent-replayed'), null);
  });

  test('expired records are purged, and the key can be used again', async () => {
    const a = await newTenant(t.url);
    await emit('old', a.apiKey, ecfFor(a.rnc));
    await t.sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'old'`;
    const { purgeExpiredKeys } = await import('../src/idempotency/queries.ts');
    assert.ok((await purgeExpiredKeys(t.sql, 100)) >= 1);
    const [row] = await t.sql`select count(*)::int as n from idempotency_keys where key = 'old'`;
    assert.equal(row?.n, 0);
    const again = await emit('old', a.apiKey, ecfFor(a.rnc, 32));
    assert.equal(again.status, 202);
    assert.equal(again.headers.get('idempotent-replayed'), null);
  });

  test('claims made together go in one statement; the same key twice among them runs once', async () => {
    const a = await newTenant(t.url);
    const store = new IdempotencyStore(t.sql, { ttlMs: 60_000, leaseMs: 60_000 }, createLogger('silent'));
    let ran = 0;
    const handler = store.wrap(async (ctx) => {
      ran++;
      return { status: 201, body: { by: ctx.requestId } };
    });
    const body = { amount: 2 };
    // Started in one turn of the event loop: their claims are one statement.
    const outcomes = await Promise.allSettled([
      handler(contextFor(a.tenantId, 'one', 'together-1', body)),
      handler(contextFor(a.tenantId, 'two', 'together-1', body)),
      handler(contextFor(a.tenantId, 'three', 'together-2', body)),
    ]);
    assert.equal(outcomes[0]?.status, 'fulfilled');
    assert.equal(outcomes[2]?.status, 'fulfilled');
    const second = outcomes[1];
    assert.ok(second?.status === 'rejected' && second.reason instanceof AppError && second.reason.code === 'IDEMPOTENCY_KEY_IN_USE', String(second?.status === 'rejected' ? second.reason : 'fulfilled'));
    assert.equal(ran, 2);
    const replay = await handler(contextFor(a.tenantId, 'four', 'together-1', body));
    assert.deepEqual(JSON.parse(String(replay.raw?.data)), { by: 'one' });
  });

  test('answers stored in one transaction together fail it when one key was taken over; stored one by one, that one fails alone', async () => {
    const a = await newTenant(t.url);
    const store = new IdempotencyStore(t.sql, { ttlMs: 60_000, leaseMs: 60_000 }, createLogger('silent'));
    // Three requests whose answers are stored in one transaction, in one turn, as an emit batch's are.
    const waiting: { claim: IdempotencyClaim; reply: Reply; done: (err?: unknown) => void }[] = [];
    let together: unknown;
    const storeTogether = async () => {
      await t.sql`update idempotency_keys set owner = gen_random_uuid() where tenant_id = ${a.tenantId} and key = 'batch-2'`;
      // The statement storing the three fails, and with it the transaction: a batch sends its
      // COMMIT without waiting to hear, so the statement itself must undo the batch.
      together = await t.sql.begin((tx) => Promise.all(waiting.map((w) => w.claim.storeIn(tx, w.reply)))).then(() => null, (err: unknown) => err);
      // Then one by one (as an emit batch retries its documents): the handlers finish once theirs committed.
      for (const w of waiting) {
        await t.sql.begin((tx) => w.claim.storeIn(tx, w.reply)).then(() => w.done(), (err: unknown) => w.done(err));
      }
    };
    const handler = store.wrap(async (ctx, claim) => {
      const reply: Reply = { status: 201, body: { by: ctx.requestId } };
      await new Promise<void>((resolve, reject) => {
        waiting.push({ claim: claim as IdempotencyClaim, reply, done: (err) => (err === undefined ? resolve() : reject(err)) });
        if (waiting.length === 3) void storeTogether();
      });
      return reply;
    });
    const body = { amount: 3 };
    const outcomes = await Promise.allSettled(['one', 'two', 'three'].map((id, i) => handler(contextFor(a.tenantId, id, `batch-${i + 1}`, body))));
    assert.equal((together as { code?: unknown } | null)?.code, 'ECF01', String(together));
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    const lost = outcomes[1];
    assert.ok(lost?.status === 'rejected' && lost.reason instanceof AppError && lost.reason.code === 'IDEMPOTENCY_KEY_IN_USE');
    const rows = await t.sql<{ key: string; state: string; body: string | null }[]>`
      select key, state, response_body as body from idempotency_keys where tenant_id = ${a.tenantId} order by key`;
    assert.deepEqual(rows.map((r) => [r.key, r.state, r.body === null ? null : JSON.parse(r.body)]), [
      ['batch-1', 'done', { by: 'one' }],
      ['batch-2', 'running', null],
      ['batch-3', 'done', { by: 'three' }],
    ]);
  });

  test('an emit batch, its COMMIT sent behind its writes, in which one key was taken over commits the others and fails that one alone', async () => {
    const a = await newTenant(t.url);
    const store = new IdempotencyStore(t.sql, { ttlMs: 60_000, leaseMs: 60_000 }, createLogger('silent'));
    await t.sql`create table if not exists batch_writes (tenant_id integer not null, encf text not null, by text not null)`;
    let batches = 0;
    let firstBatchRunning = () => {};
    const others = new Promise<void>((resolve) => (firstBatchRunning = resolve));
    // The first batch (the first request alone: the others join the numbering only once it
    // runs) takes the second request's key over, as a retry would, before the second batch (the
    // other two) stores its answers. (In the batch's own transaction: the embedded database has
    // one connection.)
    const batcher = new SequenceBatcher(t.sql, {
      ranges: async (tx) => {
        if (batches++ === 0) {
          await tx`update idempotency_keys set owner = gen_random_uuid() where tenant_id = ${a.tenantId} and key = 'pipelined-2'`;
          firstBatchRunning();
        }
        return null;
      },
    });
    const handler = store.wrap(async (ctx, claim) => {
      const reply: Reply = { status: 201, body: { by: ctx.requestId } };
      if (ctx.requestId !== 'one') await others;
      await batcher.run({ tenantId: a.tenantId, environment: 'TesteCF', tipo: 31 }, (tx, encf) => Promise.all([
        tx`insert into batch_writes values (${a.tenantId}, ${encf}, ${ctx.requestId})`,
        claim?.storeIn(tx, reply),
      ]));
      return reply;
    });
    const body = { amount: 4 };
    const outcomes = await Promise.allSettled(['one', 'two', 'three'].map((id, i) => handler(contextFor(a.tenantId, id, `pipelined-${i + 1}`, body))));
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    const lost = outcomes[1];
    assert.ok(lost?.status === 'rejected' && lost.reason instanceof AppError && lost.reason.code === 'IDEMPOTENCY_KEY_IN_USE', String(lost?.status === 'rejected' ? lost.reason : ''));
    // The taken-over request's write was rolled back with its number: no gap.
    const writes = await t.sql<{ encf: string; by: string }[]>`select encf, by from batch_writes where tenant_id = ${a.tenantId} order by encf`;
    assert.deepEqual(writes.map((w) => [w.encf, w.by]), [['E310000000001', 'one'], ['E310000000002', 'three']]);
    const keys = await t.sql<{ key: string; state: string }[]>`select key, state from idempotency_keys where tenant_id = ${a.tenantId} order by key`;
    assert.deepEqual(keys.map((k) => [k.key, k.state]), [['pipelined-1', 'done'], ['pipelined-2', 'running'], ['pipelined-3', 'done']]);
  });

  test('a request that outlasts its lease loses the key to the retry: only the retry\'s writes commit, the first answers IN_USE', async () => {
    const a = await newTenant(t.url);
    const store = new IdempotencyStore(t.sql, { ttlMs: 60_000, leaseMs: 300 }, createLogger('silent'));
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const marker = `lease-${a.tenantId}`;
    const handler = store.wrap(async (ctx, claim) => {
      if (ctx.requestId === 'first') await gate;
      const reply = { status: 201, body: { by: ctx.requestId } };
      await t.sql.begin(async (tx) => {
        await insertJob(tx, { kind: 'noop', payload: { marker, by: ctx.requestId }, delayMs: 3_600_000 });
        await claim?.storeIn(tx, reply);
      });
      return reply;
    });
    const body = { amount: 1 };
    const first = handler(contextFor(a.tenantId, 'first', 'slow', body));
    first.catch(() => {});
    await sleep(600); // the first request's lease passes while it is held up
    const retry = await handler(contextFor(a.tenantId, 'retry', 'slow', body));
    assert.equal(retry.status, 201);
    assert.deepEqual(retry.body, { by: 'retry' });
    open();
    await assert.rejects(first, (err: unknown) => err instanceof AppError && err.code === 'IDEMPOTENCY_KEY_IN_USE' && err.headers?.['retry-after'] === '1');
    const effects = await t.sql<{ by: string }[]>`select payload->>'by' as by from jobs where payload->>'marker' = ${marker}`;
    assert.deepEqual(effects.map((e) => e.by), ['retry'], 'the first request\'s transaction was rolled back');
    const third = await handler(contextFor(a.tenantId, 'third', 'slow', body));
    assert.equal(third.headers?.['idempotent-replayed'], 'true');
    assert.deepEqual(JSON.parse(String(third.raw?.data)), { by: 'retry' });
    await t.sql`delete from jobs where payload->>'marker' = ${marker}`;
  });

  test('an emit held up past its lease and its retry make exactly one document', async () => {
    const a = await newTenant(t.url);
    const body = ecfFor(a.rnc);
    assert.equal((await emit(undefined, a.apiKey, ecfFor(a.rnc))).status, 202, 'creates the sequence row');
    // Hold the sequence row lock, so the first request waits inside its emit transaction.
    // (On the embedded database this holds its only connection: the claims wait instead.)
    let release = () => {};
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const side = t.sql.begin(async (tx) => {
      await tx`select last_value from encf_sequences where tenant_id = ${a.tenantId} for update`;
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isLocked;
    const first = emit('held-up', a.apiKey, body);
    await sleep(1500); // past the 1 s lease
    const retry = emit('held-up', a.apiKey, body);
    await sleep(1000);
    release();
    await side;
    const answers = await Promise.all([first, retry]);
    const created = answers.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === null);
    assert.equal(created.length, 1, answers.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('\n'));
    for (const r of answers.filter((x) => x !== created[0])) {
      if (r.status === 409) assert.equal(r.body.error.code, 'IDEMPOTENCY_KEY_IN_USE');
      else assert.equal(r.headers.get('idempotent-replayed'), 'true');
    }
    assert.equal(await documentCount(a.tenantId), 2);
    const later = await emit('held-up', a.apiKey, body);
    assert.equal(later.headers.get('idempotent-replayed'), 'true');
    assert.equal(later.body.data.internalTrackId, created[0]?.body.data.internalTrackId);
  });

  test('the maintenance.purge job deletes every expired record, in batches, and keeps the live ones', async () => {
    const a = await newTenant(t.url);
    assert.equal((await emit('purge-live', a.apiKey, ecfFor(a.rnc))).status, 202);
    assert.equal((await emit('purge-old', a.apiKey, ecfFor(a.rnc, 32))).status, 202);
    await t.sql`update idempotency_keys set expires_at = now() - interval '1 second' where tenant_id = ${a.tenantId} and key = 'purge-old'`;
    // More than one batch (1000) of expired records.
    await t.sql`
      insert into idempotency_keys (tenant_id, environment, key, fingerprint, state, expires_at)
      select ${a.tenantId}, 'TesteCF', 'expired-' || g, 'f', 'done', now() - interval '1 hour'
      from generate_series(1, 2500) as g`;
    await t.sql`update sessions set expires_at = now() - interval '2 days' where tenant_id = ${a.tenantId}`;
    const job = { id: '0', kind: 'maintenance.purge' as const, payload: {}, runAt: new Date(), attempts: 1, lastError: null };
    const { IdempotencyStore } = await import('../src/idempotency/idempotent.ts');
    const store = new IdempotencyStore(t.sql, { ttlMs: 86_400_000, leaseMs: 60_000 }, createLogger('silent'));
    const purges = { idempotencyKeys: (batch: number) => store.purgeExpired(batch), sessions: async () => (await t.sql`delete from sessions where expires_at < now()`).count };
    const outcome = await maintenanceJob(purges, createLogger('silent')).run(job, { signal: new AbortController().signal, log: createLogger('silent'), owner: 'test', scheduled: () => {} });
    assert.ok(outcome !== undefined && 'retryIn' in outcome && outcome.retryIn > 0, 'it reschedules itself');
    const keys = await t.sql<{ key: string }[]>`select key from idempotency_keys where tenant_id = ${a.tenantId} order by key`;
    assert.deepEqual(keys.map((k) => k.key), ['purge-live']);
    const [sessions] = await t.sql<{ n: number }[]>`select count(*)::int as n from sessions where tenant_id = ${a.tenantId}`;
    assert.equal(sessions?.n, 0);
  });
});

describe('Idempotency-Key and the path', () => {
  test('the same key on another document\'s …/reenviar is 409 IDEMPOTENCY_KEY_CONFLICT, and that document is still acted on with its own key', async () => {
    const a = await newTenant(t.url);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await emit(undefined, a.apiKey, ecfFor(a.rnc));
      assert.equal(res.status, 202, res.text);
      ids.push(res.body.data.internalTrackId as string);
    }
    // As if both had failed for good (the workers are off in this file).
    await t.sql`update documents set estado = 'error' where tenant_id = ${a.tenantId}`;
    const resend = (id: string | undefined, key: string | undefined) =>
      call(t.url, 'POST', `/TesteCF/documentos-ecf/${id ?? ''}/reenviar`, { headers: { 'x-api-key': a.apiKey, ...(key === undefined ? {} : { 'idempotency-key': key }) } });
    const first = await resend(ids[0], 'reenviar-k');
    assert.equal(first.status, 202, first.text);
    assert.equal(first.body.data.internalTrackId, ids[0]);
    const other = await resend(ids[1], 'reenviar-k');
    assert.equal(other.status, 409, other.text);
    assert.equal(other.body.error.code, 'IDEMPOTENCY_KEY_CONFLICT');
    assert.equal(other.headers.get('idempotent-replayed'), null);
    const [still] = await t.sql<{ estado: string }[]>`select estado from documents where id = ${ids[1] ?? ''}`;
    assert.equal(still?.estado, 'error', 'the second document was not touched');
    // The first path still replays; the second document with a key of its own runs.
    assert.equal((await resend(ids[0], 'reenviar-k')).headers.get('idempotent-replayed'), 'true');
    const own = await resend(ids[1], 'reenviar-k2');
    assert.equal(own.status, 202, own.text);
    assert.equal(own.body.data.internalTrackId, ids[1]);
  });

  test('a key stored by the formula before the path counted still replays its own request', async () => {
    const a = await newTenant(t.url);
    const { legacyRequestFingerprint } = await import('../src/idempotency/canonical.ts');
    const store = new IdempotencyStore(t.sql, { ttlMs: 60_000, leaseMs: 60_000 }, createLogger('silent'));
    let ran = 0;
    const handler = store.wrap(async () => {
      ran++;
      return { status: 201, body: { ran } };
    });
    const body = { amount: 3 };
    const fingerprint = legacyRequestFingerprint('POST', '/{env}/things', body, Buffer.alloc(0));
    await t.sql`
      insert into idempotency_keys (tenant_id, environment, key, fingerprint, state, response_status, response_headers, response_body, expires_at)
      values (${a.tenantId}, 'TesteCF', 'before-upgrade', ${fingerprint}, 'done', 201, '{}'::jsonb, '{"success":true,"data":{"ran":0}}', now() + interval '1 day')`;
    const replayed = await handler(contextFor(a.tenantId, 'r1', 'before-upgrade', body));
    assert.equal(replayed.status, 201);
    assert.equal(ran, 0, 'replayed, not run again');
    await assert.rejects(handler(contextFor(a.tenantId, 'r2', 'before-upgrade', { amount: 4 })), (err: unknown) => err instanceof AppError && err.code === 'IDEMPOTENCY_KEY_CONFLICT');
  });
});

describe('canonicalJson', () => {
  test('requestFingerprint is "v2:" and the SHA-256 of "METHOD full path\\n" and the canonical body, or the raw bytes without one', async () => {
    const { legacyRequestFingerprint, requestFingerprint, resourcePath } = await import('../src/idempotency/canonical.ts');
    const { createHash } = await import('node:crypto');
    const body = JSON.parse('{"b":1,"a":{"ñ":"x","c":[2,1]}}') as unknown;
    // The path is the resource's: literal segments lower-cased, parameters filled in and percent-encoded.
    const path = resourcePath('/{env}/Documentos-Recibidos/{id}/aprobacion', { env: 'TesteCF', id: 'a/b' });
    assert.equal(path, '/TesteCF/documentos-recibidos/a%2Fb/aprobacion');
    const expected = createHash('sha256').update(`POST ${path}\n`).update('{"a":{"c":[2,1],"ñ":"x"},"b":1}').digest('hex');
    assert.equal(requestFingerprint('POST', path, body, Buffer.alloc(0)), `v2:${expected}`);
    const raw = Buffer.from([0xff, 0x00, 0x41]);
    assert.equal(requestFingerprint('PUT', '/api/x', undefined, raw), `v2:${createHash('sha256').update('PUT /api/x\n').update(raw).digest('hex')}`);
    // Two documents' paths differ, so their fingerprints do.
    assert.notEqual(requestFingerprint('POST', resourcePath('/{env}/x/{id}', { env: 'TesteCF', id: '1' }), body, Buffer.alloc(0)), requestFingerprint('POST', resourcePath('/{env}/x/{id}', { env: 'TesteCF', id: '2' }), body, Buffer.alloc(0)));
    // The formula keys stored before the path counted were made with, kept to compare them by.
    const legacy = createHash('sha256').update('POST /{env}/documentos-ecf\n').update('{"a":{"c":[2,1],"ñ":"x"},"b":1}').digest('hex');
    assert.equal(legacyRequestFingerprint('POST', '/{ENV}/documentos-ecf', body, Buffer.alloc(0)), legacy);
  });

  test('canonicalJson sorts keys at every level and writes the exact text stored fingerprints were made from', () => {
    // Fingerprints of keys stored before an upgrade must still match after it: the text is pinned.
    const parsed: unknown = JSON.parse('{"b":[{"z":1,"a":"x\\"y"},null,true],"__proto__":{"k":2},"a":{"d":"ñ\\u0001","c":-0.5e2,"e":[]},"":{}}');
    assert.equal(canonicalJson(parsed), '{"":{},"__proto__":{"k":2},"a":{"c":-50,"d":"ñ\\u0001","e":[]},"b":[{"a":"x\\"y","z":1},null,true]}');
    assert.equal(Object.getPrototypeOf(JSON.parse(canonicalJson(parsed))), Object.prototype);
    assert.equal(canonicalJson('text'), '"text"');
    assert.equal(canonicalJson(null), 'null');
  });
});

test('canonicalJson orders every key by UTF-16 code units, integer keys and large objects included', () => {
  const keys = ['b', 'a', 'B', 'ä', '😀', 'é', '_', '10', '9', '01', '4294967295', ...Array.from({ length: 60 }, (_, i) => `k${(i * 37) % 60}`)];
  for (const n of [2, 9, 11, 33, keys.length]) {
    const subset = keys.slice(0, n);
    const object = Object.fromEntries(subset.map((k, i) => [k, i]));
    const expected = `{${[...subset].sort().map((k) => `${JSON.stringify(k)}:${object[k]}`).join(',')}}`;
    assert.equal(canonicalJson(object), expected, `${n} keys`);
    assert.equal(canonicalJson({ z: [object], a: 1 }), `{"a":1,"z":[${expected}]}`, `${n} keys, nested`);
  }
});
