import type { Queryable, Sql, Tx } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { formatEncf, MAX_ENCF_NUMBER } from '../ecf/encf.ts';
import { currentTransactionId, takeSequenceRange, transactionStatus, usedEncfs } from './queries.ts';
import { sealable } from '../db/sealed.ts';
import { isUniqueViolation } from '../db/errors.ts';

// Group commit for gap-free numbering.
//
// Taking numbers from a sequence locks its row until commit, so one sequence's emits take
// their numbers one transaction at a time. With one document per transaction a tenant's rate
// would be bounded by commit latency. Instead, the emits of a sequence that arrive while
// its batches are in flight form the next batch, and a batch of k documents:
//   1. takes k numbers in one statement,
//   2. sends the k documents' writes together (the driver pipelines them),
//   3. sends its COMMIT right behind them, without waiting for their results.
// The batch commits all its documents and numbers or none, so there is never a gap. When
// anything in it fails, it is rolled back and each document is retried on its own, so a
// failing document only fails itself. Different sequences never wait on each other.
//
// Why the COMMIT does not wait: the sequence's lock is held from the numbers to the commit, and
// the next batch waits for it. Waiting for the writes' results before sending COMMIT added to
// that hold the time for the event loop, busy with other requests, to come round to the results
// (timed in PostgreSQL's log: the hold went from 14 to 9 ms at the median). A statement that
// fails aborts the transaction, and PostgreSQL answers the COMMIT behind it by rolling back; so
// the writes must fail in SQL whatever must undo the batch (a claim taken over fails the
// statement storing the answers: src/idempotency/queries.ts). Whether a batch whose work
// failed was committed or rolled back, PostgreSQL says afterwards (pg_xact_status).
//
// Numbers a document already uses (an eNCF the tenant gave explicitly) must be skipped. A batch
// first takes its numbers without looking for them: documents_encf_key refuses a number in use,
// and only then is the batch run again, taking numbers that skip the used ones. Looking first
// would cost every batch a statement for what only a tenant mixing explicit and implicit
// numbering of a type ever needs; and that statement, on documents, is planned from statistics
// a busy young table does not have yet (before autovacuum's first ANALYZE the planner cannot
// tell documents_encf_key from the other (tenant_id, environment, …) indexes, and a cached plan
// that picked one of those read every document of the tenant on each batch).
//
// Where the numbers come from: the tenant's authorised ranges of the type (src/sequences/),
// or, in TesteCF and CerteCF while the type has no range registered, the implicit sequence
// from 1 (encf_sequences) that came before ranges.
//
// Emits whose client chose the eNCF (an ERP that numbers its own documents) are batched the same
// way, in batches of their own: a batch checks and spends its eNCFs against the ranges in one go
// (under the ranges' row locks, as numbering takes them) and commits once. A reused eNCF fails its
// batch, which is then retried one by one, so it alone is refused. Should a chosen and a numbered
// batch of one type (implicit sequence, no ranges to lock) insert the same two eNCFs in opposite
// orders, they deadlock: PostgreSQL ends one, which is retried one by one like any failed batch.

export interface Sequence {
  tenantId: number;
  environment: Environment;
  tipo: number;
}

export const MAX_SEQUENCE = MAX_ENCF_NUMBER;
export { formatEncf };

/** A number of a registered range and that range's expiry (yyyy-MM-dd, null for 32 and 34). */
export interface Numbered {
  encf: string;
  fechaVencimiento: string | null;
}

/**
 * The registered ranges (SequenceService.take): null when the type numbers implicitly. With
 * `checkUsed` false it need not skip numbers a document already uses (see above).
 */
export type RangeSource = (tx: Queryable, sequence: Sequence, count: number, checkUsed: boolean) => Promise<Numbered[] | null>;

/**
 * How eNCFs the client chose are checked against the registered ranges and spent, all of a batch
 * at once (SequenceService.spendExplicitMany): each one's range expiry, or null where the type
 * numbers implicitly.
 */
export type ChosenSource = (tx: Queryable, sequence: Sequence, encfs: readonly string[]) => Promise<({ fechaVencimiento: string | null } | null)[]>;

/** The constraint that refuses a second document with the same eNCF. */
export const ENCF_CONSTRAINT = 'documents_encf_key';

/**
 * A document's part of a batch. It makes all its statements at once, without waiting for the
 * result of one before making the next: its own, when it is called, or through a BatchLoader
 * in `microtasks` mode, whose load runs in a process.nextTick queued then. The batch's COMMIT
 * is made right after those (statementsMade), and the driver sends statements in the order
 * they were made; one made later is refused (src/db/sealed.ts). A work may fail before making
 * anything (the batch is then rolled back), or by a statement's failure; once its statements
 * were made, failing otherwise fails it alone, its writes committed with the batch.
 */
type Work = (tx: Tx, encf: string, fechaVencimiento: string | null) => Promise<unknown>;

/**
 * Resolves once the works just started have made their statements: after the nextTicks their
 * BatchLoaders queued, which run first. Not a setImmediate: under load the event loop's turn
 * takes milliseconds (2 at the median, 5 at p90 in the emit benchmark), the lock held meanwhile.
 */
function statementsMade(): Promise<void> {
  return new Promise((resolve) => process.nextTick(resolve));
}

/** The reason a batch failed: a statement's own error rather than the "transaction is aborted" of those after it. */
function failureOf(outcomes: readonly PromiseSettledResult<unknown>[]): unknown {
  const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  const own = failed.find((o) => (o.reason as { code?: unknown } | null)?.code !== '25P02');
  return (own ?? failed[0])?.reason;
}

function deliver(w: Waiting, outcome: PromiseSettledResult<unknown> | undefined): void {
  if (outcome?.status === 'fulfilled') w.resolve(outcome.value);
  else w.reject(outcome === undefined ? new Error('a document of the batch has no outcome') : outcome.reason);
}

interface Waiting {
  work: Work;
  /** The eNCF the client chose; undefined when the batch numbers the document. */
  chosen?: string;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

export class SequenceExhaustedError extends Error {
  override name = 'SequenceExhaustedError';
}

/**
 * Emits that must be waiting before a second batch of a sequence starts beside a running one.
 * One busy sequence gains from the overlap (one tenant at 64 connections: 1,650 against 1,500
 * emits/s); many sequences busy at once each have few waiting, and splitting those into more,
 * smaller batches costs more statements and connections than the overlap gains (eight tenants:
 * 1,045 emits/s with any second batch, 1,210 with 16 waiting, 1,250 with none). Since a batch
 * is two statements whatever its size, larger batches pay: with 32 rather than 16, one tenant
 * made 1,758–1,951 against 1,624–1,773 emits/s (five pairs of runs in six).
 */
export const OVERLAP_WAITING = 32;

export interface BatcherOptions {
  /** Emits in one transaction at most (64). */
  maxBatch?: number;
  /** Where numbers come from when the type has registered ranges (none: the implicit sequence only). */
  ranges?: RangeSource;
  /** How chosen eNCFs are spent (none: anything goes). */
  chosen?: ChosenSource;
  /** Batches of one sequence open at once (2). */
  inFlight?: number;
}

/** The emits of one sequence: those waiting for a batch, and how many batches are in flight. */
interface SequenceQueue {
  waiting: Waiting[];
  running: number;
  /** A first batch is to start on the next tick (see enqueue). */
  starting: boolean;
}

export class SequenceBatcher {
  private readonly queues = new Map<string, SequenceQueue>();
  private readonly sql: Sql;
  private readonly maxBatch: number;
  private readonly inFlight: number;

  private readonly ranges: RangeSource;
  private readonly chosen: ChosenSource;

  /**
   * `inFlight` batches of a sequence may be open at once. Their numbers still come one batch
   * after the other (the sequence's row lock is held to commit), but the next batch's BEGIN
   * and its wait for that lock overlap the current batch's writes and commit, instead of
   * following them: the sequence's throughput is no longer bound by every round trip of a batch.
   * A batch beside a running one starts only once OVERLAP_WAITING emits wait (see there).
   */
  constructor(sql: Sql, options: BatcherOptions = {}) {
    this.sql = sql;
    this.maxBatch = options.maxBatch ?? 64;
    this.ranges = options.ranges ?? (async () => null);
    this.inFlight = options.inFlight ?? 2;
    this.chosen = options.chosen ?? (async (_tx, _s, encfs) => encfs.map(() => null));
  }

  /** Runs `work` with the next eNCF of `sequence`, in a transaction shared with other emits of it. */
  run<T>(sequence: Sequence, work: (tx: Tx, encf: string, fechaVencimiento: string | null) => Promise<T>): Promise<T> {
    return this.enqueue(`${sequence.tenantId}|${sequence.environment}|${sequence.tipo}`, sequence, work, undefined);
  }

  /**
   * Runs `work` with an eNCF the client chose, once spent (ChosenSource), in a transaction shared
   * with other emits of the sequence that chose theirs: they share its commit as numbered emits
   * do (a batch that fails is retried one by one, so a reused or refused eNCF fails alone).
   */
  runChosen<T>(sequence: Sequence, encf: string, work: (tx: Tx, encf: string, fechaVencimiento: string | null) => Promise<T>): Promise<T> {
    return this.enqueue(`${sequence.tenantId}|${sequence.environment}|${sequence.tipo}|chosen`, sequence, work, encf);
  }

  private enqueue<T>(key: string, sequence: Sequence, work: Work, chosen: string | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = { work, chosen, resolve: resolve as (v: unknown) => void, reject };
      let queue = this.queues.get(key);
      if (queue === undefined) this.queues.set(key, (queue = { waiting: [], running: 0, starting: false }));
      queue.waiting.push(waiting);
      if (queue.running > 0) {
        this.pump(key, sequence, queue);
      } else if (!queue.starting) {
        // An idle sequence's first batch starts once the microtasks queued now have run, so
        // that emits started together (a batch request's documents, which reach here one
        // microtask after another) share it rather than the first going alone.
        queue.starting = true;
        const q = queue;
        process.nextTick(() => {
          q.starting = false;
          this.pump(key, sequence, q);
        });
      }
    });
  }

  /** Starts batches of the waiting emits while the sequence has a batch slot free. */
  private pump(key: string, sequence: Sequence, queue: SequenceQueue): void {
    while (queue.waiting.length > 0 && (queue.running === 0 || (queue.running < this.inFlight && queue.waiting.length >= OVERLAP_WAITING))) {
      const batch = queue.waiting.splice(0, this.maxBatch);
      queue.running++;
      void this.settle(sequence, batch).finally(() => {
        queue.running--;
        if (queue.waiting.length > 0) this.pump(key, sequence, queue);
        else if (queue.running === 0) this.queues.delete(key);
      });
    }
  }

  private async settle(sequence: Sequence, batch: Waiting[]): Promise<void> {
    try {
      const outcomes = await this.transaction(sequence, batch, false).catch((error: unknown) => {
        // A number some document already uses: again, skipping the used ones.
        if (batch[0]?.chosen === undefined && isUniqueViolation(error, ENCF_CONSTRAINT)) return this.transaction(sequence, batch, true);
        throw error;
      });
      batch.forEach((w, i) => deliver(w, outcomes[i]));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      // Something in the batch failed and nothing of it was stored: one by one, so only
      // the failing document fails.
      for (const w of batch) {
        try {
          deliver(w, (await this.transaction(sequence, [w], true))[0]);
        } catch (err) {
          w.reject(err);
        }
      }
    }
  }

  /**
   * One transaction for the whole batch, its COMMIT sent behind the works' statements (see the
   * top of this file): each work's outcome once it committed. Rejects when it did not commit.
   * sql.begin is src/db/transaction.ts's: on a lost connection it rejects without writing to
   * it. (Not sql.reserve(): with the array types fetched once, postgres 3.4.9 never hands a
   * freshly opened connection to a reserve.)
   */
  private async transaction(sequence: Sequence, batch: Waiting[], checkUsed: boolean): Promise<PromiseSettledResult<unknown>[]> {
    const sent = await this.sql.begin(async (raw) => {
      // Sent ahead of the numbers, in the same round trip; needed only should a work fail.
      const xid = currentTransactionId(raw);
      xid.catch(() => {}); // its failure is the transaction's, which the driver reports
      const numbers = batch[0]?.chosen !== undefined ? await this.spendChosen(raw, sequence, batch)
        : (await this.ranges(raw, sequence, batch.length, checkUsed))
          ?? (await this.takeNumbers(raw, sequence, batch.length, checkUsed)).map((encf) => ({ encf, fechaVencimiento: null }));
      const { tx, seal } = sealable(raw);
      const works = batch.map((w, i) => w.work(tx, numbers[i]?.encf as string, numbers[i]?.fechaVencimiento ?? null));
      let early: { reason: unknown } | null = null;
      for (const work of works) work.catch((reason: unknown) => void (early ??= { reason }));
      await statementsMade();
      seal();
      // Failed before making its statements (a work that finds its document invalid for the
      // numbers it got): the others' statements are rolled back with the numbers.
      if (early !== null) throw (early as { reason: unknown }).reason;
      // Returned rather than awaited: the driver sends its COMMIT now.
      return { works, xid: await xid };
    });
    const outcomes = await Promise.allSettled(sent.works);
    if (outcomes.every((o) => o.status === 'fulfilled')) return outcomes;
    // A statement that failed made the COMMIT a rollback; a work that failed after its
    // statements succeeded did not.
    if ((await transactionStatus(this.sql, sent.xid)) === 'committed') return outcomes;
    throw failureOf(outcomes);
  }

  private async spendChosen(tx: Tx, sequence: Sequence, batch: Waiting[]): Promise<Numbered[]> {
    const encfs = batch.map((w) => w.chosen as string);
    const spent = await this.chosen(tx, sequence, encfs);
    return encfs.map((encf, i) => ({ encf, fechaVencimiento: spent[i]?.fechaVencimiento ?? null }));
  }

  /** `count` eNCFs of the implicit sequence: the next numbers, skipping those the tenant gave explicitly when `checkUsed`. */
  private async takeNumbers(tx: Tx, s: Sequence, count: number, checkUsed: boolean): Promise<string[]> {
    const out: string[] = [];
    while (out.length < count) {
      const want = count - out.length;
      const { first, last } = await takeSequenceRange(tx, s.tenantId, s.environment, s.tipo, want);
      if (last > MAX_SEQUENCE) throw new SequenceExhaustedError(`The eNCF sequence of type ${s.tipo} is exhausted`);
      const candidates = Array.from({ length: want }, (_, i) => formatEncf(s.tipo, first + i));
      if (!checkUsed) return candidates;
      const used = await usedEncfs(tx, s.tenantId, s.environment, candidates);
      out.push(...candidates.filter((e) => !used.has(e)));
    }
    return out;
  }
}
