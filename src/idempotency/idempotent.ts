import { randomUUID } from 'node:crypto';
import type { Queryable, Sql } from '../db/connect.ts';
import { AppError, errorEnvelope } from '../errors.ts';
import { tenantOf } from '../http/params.ts';
import { header, type Handler, type Reply, type RequestContext } from '../http/types.ts';
import type { Logger } from '../log.ts';
import { isLegacyFingerprint, legacyRequestFingerprint, requestFingerprint, resourcePath } from './canonical.ts';
import { claimKeys, findKey, isClaimTakenOver, MAX_ANSWERS, purgeExpiredKeys, releaseKey, storeResponses, type Answer, type Claim, type KeyScope, type StoredResponse } from './queries.ts';
import { BatchLoader, loaderPerOwner } from '../lib/batch-loader.ts';

// Idempotency-Key handling, as docs/api.md ("Idempotency") states it:
// - keys are 1–255 printable ASCII characters, scoped per tenant and environment;
// - the first request claims the key atomically and holds a lease while it runs;
// - the fingerprint is method, the resource's full path and the canonical body (canonical.ts);
// - same key, same fingerprint → the stored status, headers and body, with
//   Idempotent-Replayed: true; different fingerprint → 409 IDEMPOTENCY_KEY_CONFLICT;
//   still running → 409 IDEMPOTENCY_KEY_IN_USE with Retry-After;
// - every response the handler produced is stored (4xx included) except 401/403/429
//   and 5xx: a server failure releases the key so the client's retry can run;
// - each claim has an owner token, and a request stores or releases only its own claim. A
//   request that outlived its lease may find the key taken over by a retry: its storeIn
//   then throws, so its transaction (on emit: the document) rolls back, and it answers
//   409 IDEMPOTENCY_KEY_IN_USE like any request that meets a running claim; the next
//   retry gets the answer of the request that holds the key.

const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ['content-type', 'location'] as const;
const NOT_STORED = new Set([401, 403, 429]);

export interface IdempotencyConfig {
  ttlMs: number;
  leaseMs: number;
}

/**
 * Lets a handler store its response in the same transaction as its own writes. It throws
 * when the claim was taken over, which must roll that transaction back.
 */
export interface IdempotencyClaim {
  storeIn(tx: Queryable, reply: Reply): Promise<void>;
}

const RETRY_AFTER = { 'retry-after': '1' };

function inUse(): AppError {
  return new AppError('IDEMPOTENCY_KEY_IN_USE', undefined, { headers: RETRY_AFTER });
}

function claimLost(): AppError {
  return new AppError('IDEMPOTENCY_KEY_IN_USE',
    'This request outlasted its hold on the Idempotency-Key and a retry with the same key took it over; nothing of this request was stored. Retry to get that request\'s answer',
    { headers: RETRY_AFTER });
}

export type IdempotentHandler = (ctx: RequestContext, claim: IdempotencyClaim | null) => Promise<Reply>;

function toStored(reply: Reply): StoredResponse {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const v = reply.headers?.[name];
    if (v !== undefined) headers[name] = v;
  }
  headers['content-type'] ??= 'application/json; charset=utf-8';
  const body = reply.body === undefined ? null : JSON.stringify(reply.body);
  return { status: reply.status, headers, body };
}

function replay(row: StoredResponse): Reply {
  return {
    status: row.status,
    raw: { data: row.body ?? '', contentType: row.headers['content-type'] ?? 'application/json; charset=utf-8' },
    headers: { ...row.headers, 'idempotent-replayed': 'true' },
  };
}

/**
 * The answers stored in one transaction together (an emit batch's, whose documents are stored
 * together and so reach storeIn together) go to the database as one statement, rather than one
 * each; at once, as an emit batch holds its sequence's lock until it commits. A claim taken
 * over fails the statement and so the transaction (an emit batch sends its COMMIT without
 * waiting to hear): with one answer, that answer's claim was lost (false); with several, which
 * one is not known, and the statement's error is every one's (an emit batch then stores its
 * documents one by one, and the lost claim fails alone).
 */
const answerWriters = loaderPerOwner<Queryable, Answer, boolean>();

function answersOf(tx: Queryable): BatchLoader<Answer, boolean> {
  return answerWriters(tx, () => new BatchLoader(async (answers) => {
    try {
      await storeResponses(tx, answers, true);
    } catch (err) {
      if (answers.length === 1 && isClaimTakenOver(err)) return new Map(answers.map((a) => [a, false]));
      throw err;
    }
    return new Map(answers.map((a) => [a, true]));
  }, MAX_ANSWERS, 'microtasks'));
}

export class IdempotencyStore {
  private readonly sql: Sql;
  private readonly config: IdempotencyConfig;
  private readonly log: Logger;

  /** Claims made during one turn of the event loop go to the database as one statement. */
  private readonly claims: BatchLoader<Claim, boolean>;

  constructor(sql: Sql, config: IdempotencyConfig, log: Logger) {
    this.sql = sql;
    this.config = config;
    this.log = log;
    this.claims = new BatchLoader((batch) => this.claimAll(batch));
  }

  /**
   * One statement for the claims of a turn. A key claimed twice in it (two requests with one
   * key arriving together) is asked for once: the second claim finds the first's and waits or
   * replays like any request that meets a running claim.
   */
  private async claimAll(batch: Claim[]): Promise<Map<Claim, boolean>> {
    const first = new Map<string, Claim>();
    for (const c of batch) {
      const id = `${c.scope.tenantId}|${c.scope.environment}|${c.scope.key}`;
      if (!first.has(id)) first.set(id, c);
    }
    const held = await claimKeys(this.sql, [...first.values()], this.config.leaseMs, this.config.ttlMs);
    return new Map(batch.map((c) => [c, held.has(c.owner)]));
  }

  /** Deletes up to `batch` records past their time to live; answers how many. */
  purgeExpired(batch: number): Promise<number> {
    return purgeExpiredKeys(this.sql, batch);
  }

  /** Wraps a handler so that requests carrying Idempotency-Key follow the rules above. */
  wrap(handler: IdempotentHandler): Handler {
    return async (ctx) => {
      const key = header(ctx.headers, 'idempotency-key');
      if (key === undefined) return handler(ctx, null);
      if (!KEY_FORMAT.test(key)) {
        throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
          status: 400,
          details: [{ path: 'header:Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
        });
      }
      const scope: KeyScope = { tenantId: tenantOf(ctx), environment: ctx.env ?? '-', key };
      const fingerprint = requestFingerprint(ctx.method, resourcePath(ctx.routePath, ctx.params), ctx.body, ctx.rawBody);
      const sameRequest = (stored: string): boolean =>
        stored === fingerprint || (isLegacyFingerprint(stored) && stored === legacyRequestFingerprint(ctx.method, ctx.routePath, ctx.body, ctx.rawBody));
      const owner = randomUUID();
      const existing = await this.acquire(scope, owner, fingerprint, sameRequest);
      if (existing !== null) return existing;
      return this.runOwned(scope, owner, (claim) => handler(ctx, claim));
    };
  }

  /**
   * One item of a batch request (POST …/lote) under the rules above, with a key of its own
   * derived from the request's Idempotency-Key and the item's place: each item's answer is
   * stored in its own transaction, so a batch retried after a crash or a lost lease replays
   * the items that were stored and runs only the others. Without a key it just runs.
   */
  async item(ctx: RequestContext, index: number, body: unknown, run: (claim: IdempotencyClaim | null) => Promise<Reply>): Promise<Reply> {
    const key = header(ctx.headers, 'idempotency-key');
    if (key === undefined) return run(null);
    const scope: KeyScope = { tenantId: tenantOf(ctx), environment: ctx.env ?? '-', key: `${key}\n${index}` };
    const fingerprint = requestFingerprint(ctx.method, `${resourcePath(ctx.routePath, ctx.params)}#${index}`, body, Buffer.alloc(0));
    const owner = randomUUID();
    const existing = await this.acquire(scope, owner, fingerprint, (stored) => stored === fingerprint);
    if (existing !== null) return existing;
    return this.runOwned(scope, owner, run);
  }

  /** null when `owner` now holds the key; otherwise the replay to send (or it throws 409). */
  private async acquire(scope: KeyScope, owner: string, fingerprint: string, sameRequest: (stored: string) => boolean): Promise<Reply | null> {
    for (let i = 0; i < 3; i++) {
      if ((await this.claims.get({ scope, owner, fingerprint })) === true) return null;
      const row = await findKey(this.sql, scope);
      if (row === undefined) continue; // released between the two statements: claim again
      if (!sameRequest(row.fingerprint)) throw new AppError('IDEMPOTENCY_KEY_CONFLICT', 'This Idempotency-Key was already used with a different request; use a new key');
      if (row.state === 'running' || row.responseStatus === null) throw inUse();
      return replay({ status: row.responseStatus, headers: row.responseHeaders ?? {}, body: row.responseBody });
    }
    throw inUse();
  }

  private async runOwned(scope: KeyScope, owner: string, run: (claim: IdempotencyClaim) => Promise<Reply>): Promise<Reply> {
    let storedInTransaction = false;
    let lost = false;
    const claim: IdempotencyClaim = {
      storeIn: async (tx, reply) => {
        if ((await answersOf(tx).get({ scope, owner, response: toStored(reply) })) !== true) {
          lost = true;
          throw claimLost();
        }
        storedInTransaction = true;
      },
    };
    try {
      const reply = await run(claim);
      if (!storedInTransaction) await this.settle(scope, owner, reply);
      return reply;
    } catch (err) {
      // The key is the retry's now: nothing of ours to store or release.
      if (lost) throw claimLost();
      // Whatever the handler's transaction stored was rolled back with it.
      const reply = err instanceof AppError ? { status: err.status, body: errorEnvelope(err), headers: err.headers } : { status: 500 };
      await this.settle(scope, owner, reply).catch((e: unknown) => this.log.warn('could not settle an idempotency key; its lease will expire', { err: e }));
      throw err;
    }
  }

  private async settle(scope: KeyScope, owner: string, reply: Reply): Promise<void> {
    if (reply.status >= 500 || NOT_STORED.has(reply.status)) {
      await releaseKey(this.sql, scope, owner);
    } else if (!(await storeResponses(this.sql, [{ scope, owner, response: toStored(reply) }], false)).has(owner)) {
      // Taken over by a retry after our lease: that request's answer is the one replayed.
      this.log.info('an idempotent request outlasted its lease; a retry holds the key and its answer is kept', { status: reply.status });
    }
  }
}
