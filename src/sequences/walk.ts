import type { Queryable } from '../db/connect.ts';
import { formatEncf } from '../ecf/encf.ts';
import { holdingAnnulments, type RangeRow } from './queries.ts';

// Walking a range from its position: numbers held by an annulment are jumped over, numbers a
// document already uses (an explicit eNCF, or one used before the range was registered) are
// passed without being counted, since `remaining` never counted them.

/** Which of these eNCFs a document of the tenant uses in the environment. */
export type UsedEncfs = (tx: Queryable, tenantId: number, environment: RangeRow['environment'], encfs: string[]) => Promise<Set<string>>;

const NONE: ReadonlySet<string> = new Set();

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
  while (encfs.length < want && pos <= r.hasta && remaining > 0) {
    const candidates: string[] = [];
    while (candidates.length < want - encfs.length && pos <= r.hasta) {
      const span = held.find((s) => s.desde <= pos && pos <= s.hasta);
      if (span !== undefined) {
        pos = span.hasta + 1;
        continue;
      }
      candidates.push(formatEncf(r.tipo, pos++));
    }
    if (candidates.length === 0) break;
    const taken = used === null ? NONE : await used(tx, r.tenantId, r.environment, candidates);
    for (const encf of candidates) {
      if (taken.has(encf)) continue;
      encfs.push(encf);
      remaining--;
    }
  }
  // Walked off the end: whatever the count said, nothing is left.
  if (pos > r.hasta) remaining = 0;
  return { encfs, nextValue: pos, remaining: Math.max(0, remaining) };
}
