import type { Queryable, Sql, Tx } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { formatEncf, MAX_ENCF_NUMBER } from '../ecf/encf.ts';
import { takeSequenceRange, usedEncfs } from './queries.ts';

// Group commit for gap-free numbering.
//
// Taking numbers from a sequence locks its row until commit, so one sequence's emits go
// through one transaction at a time. With one document per transaction a tenant's rate
// would be bounded by commit latency. Instead, the emits of a sequence that arrive while
// a batch is in flight form the next batch, and a batch of k documents:
//   1. takes k numbers in one statement (skipping any the tenant already used explicitly),
//   2. sends the k documents' writes together (the driver pipelines them),
//   3. commits once.
// The batch commits all its documents and numbers or none, so there is never a gap. When
// anything in it fails, it is rolled back and each document is retried on its own, so a
// failing document only fails itself. Different sequences never wait on each other.
//
// Where the numbers come from: the tenant's authorised ranges of the type (src/sequences/),
// or, in TesteCF and CerteCF while the type has no range registered, the implicit sequence
// from 1 (encf_sequences) that came before ranges.

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

/** The registered ranges (SequenceService.take): null when the type numbers implicitly. */
export type RangeSource = (tx: Queryable, sequence: Sequence, count: number) => Promise<Numbered[] | null>;

type Work = (tx: Tx, encf: string, fechaVencimiento: string | null) => Promise<unknown>;

interface Waiting {
  work: Work;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

export class SequenceExhaustedError extends Error {
  override name = 'SequenceExhaustedError';
}

export class SequenceBatcher {
  private readonly queues = new Map<string, Waiting[]>();
  private readonly sql: Sql;
  private readonly maxBatch: number;

  private readonly ranges: RangeSource;

  constructor(sql: Sql, maxBatch = 64, ranges: RangeSource = async () => null) {
    this.sql = sql;
    this.maxBatch = maxBatch;
    this.ranges = ranges;
  }

  /** Runs `work` with the next eNCF of `sequence`, in a transaction shared with other emits of it. */
  run<T>(sequence: Sequence, work: (tx: Tx, encf: string, fechaVencimiento: string | null) => Promise<T>): Promise<T> {
    const key = `${sequence.tenantId}|${sequence.environment}|${sequence.tipo}`;
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = { work, resolve: resolve as (v: unknown) => void, reject };
      const queue = this.queues.get(key);
      if (queue !== undefined) {
        queue.push(waiting);
        return;
      }
      const fresh = [waiting];
      this.queues.set(key, fresh);
      void this.drain(key, sequence, fresh);
    });
  }

  private async drain(key: string, sequence: Sequence, queue: Waiting[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, this.maxBatch);
      try {
        const values = await this.transaction(sequence, batch);
        batch.forEach((w, i) => w.resolve(values[i]));
      } catch (error) {
        if (batch.length === 1) {
          batch[0]?.reject(error);
          continue;
        }
        // Something in the batch failed and nothing of it was stored: one by one, so only
        // the failing document fails.
        for (const w of batch) {
          try {
            w.resolve((await this.transaction(sequence, [w]))[0]);
          } catch (err) {
            w.reject(err);
          }
        }
      }
    }
    this.queues.delete(key);
  }

  /**
   * One transaction for the whole batch. sql.begin is src/db/transaction.ts's: on a lost
   * connection it rejects without writing to it. (Not sql.reserve(): with the array types
   * fetched once, postgres 3.4.9 never hands a freshly opened connection to a reserve.)
   */
  private async transaction(sequence: Sequence, batch: Waiting[]): Promise<unknown[]> {
    const values = await this.sql.begin(async (tx) => {
      const numbers = (await this.ranges(tx, sequence, batch.length)) ?? (await this.takeNumbers(tx, sequence, batch.length)).map((encf) => ({ encf, fechaVencimiento: null }));
      const settled = await Promise.allSettled(batch.map((w, i) => w.work(tx, numbers[i]?.encf as string, numbers[i]?.fechaVencimiento ?? null)));
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
      return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
    });
    return values as unknown[];
  }

  /** `count` unused eNCFs of the implicit sequence: the next numbers, skipping those the tenant gave explicitly. */
  private async takeNumbers(tx: Tx, s: Sequence, count: number): Promise<string[]> {
    const out: string[] = [];
    while (out.length < count) {
      const want = count - out.length;
      const { first, last } = await takeSequenceRange(tx, s.tenantId, s.environment, s.tipo, want);
      if (last > MAX_SEQUENCE) throw new SequenceExhaustedError(`The eNCF sequence of type ${s.tipo} is exhausted`);
      const candidates = Array.from({ length: want }, (_, i) => formatEncf(s.tipo, first + i));
      const used = await usedEncfs(tx, s.tenantId, s.environment, candidates);
      out.push(...candidates.filter((e) => !used.has(e)));
    }
    return out;
  }
}
