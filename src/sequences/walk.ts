import type { Queryable } from '../db/connect.ts';
import { formatEncf } from '../ecf/encf.ts';
import { holdingAnnulments, type RangeRow } from './queries.ts';

// Walking a range from its position: numbers held by an annulment are jumped over, numbers a
// document already uses (an explicit eNCF, or one used before the range was registered) are
// passed without being counted, since `remaining` never counted them.

/** Which of these eNCFs a document of the tenant uses in the environment. */
export type UsedEncfs = (tx: Queryable, tenantId: number, environment: RangeRow['environment'], encfs: string[]) => Promise<Set<string>>;

const NONE: ReadonlySet<string> = new Set();

/** Largest batch of numbers asked about at once while passing numbers in use. */
export const MAX_WALK_BATCH = 1024;

export interface Walked {
  encfs: string[];
  /** The range's position and numbers left after giving `encfs`. */
  nextValue: number;
  remaining: number;
}

/**
 * `used` null: numbers are given without asking which a document uses (the batcher's first try;
 * documents_encf_key refuses a number in use, and the batch is tried again with the check).
 */
export async function walkRange(tx: Queryable, r: RangeRow, want: number, used: UsedEncfs | null): Promise<Walked> {
  let pos = r.nextValue;
  let remaining = r.remaining;
  const encfs: string[] = [];
  if (remaining <= 0 || pos > r.hasta) return { encfs, nextValue: pos, remaining: Math.max(0, remaining) };
  const held = await holdingAnnulments(tx, r.tenantId, r.environment, r.tipo, { desde: pos, hasta: r.hasta });
  // Numbers documents already use (made before the range was registered) are passed a batch at
  // a time, the batch doubling each round up to MAX_WALK_BATCH: a run of a hundred thousand of
  // them costs about a hundred queries, not one per number.
  let batch = want;
  while (encfs.length < want && pos <= r.hasta && remaining > 0) {
    const candidates: { n: number; encf: string }[] = [];
    const size = Math.max(want - encfs.length, batch);
    while (candidates.length < size && pos <= r.hasta) {
      const span = held.find((s) => s.desde <= pos && pos <= s.hasta);
      if (span !== undefined) {
        pos = span.hasta + 1;
        continue;
      }
      candidates.push({ n: pos, encf: formatEncf(r.tipo, pos) });
      pos++;
    }
    if (candidates.length === 0) break;
    const taken = used === null ? NONE : await used(tx, r.tenantId, r.environment, candidates.map((c) => c.encf));
    for (const c of candidates) {
      // Enough: the rest of the batch was not walked, so the position goes back to it.
      if (encfs.length >= want) {
        pos = c.n;
        break;
      }
      if (taken.has(c.encf)) continue;
      encfs.push(c.encf);
      remaining--;
    }
    batch = Math.min(MAX_WALK_BATCH, batch * 2);
  }
  // Walked off the end: whatever the count said, nothing is left.
  if (pos > r.hasta) remaining = 0;
  return { encfs, nextValue: pos, remaining: Math.max(0, remaining) };
}
