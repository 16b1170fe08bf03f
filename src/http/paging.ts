import { S, envelope, type ParamDoc, type ResponseDoc } from './openapi.ts';
import type { Query } from './query.ts';
import { EARLIEST_DATE } from '../lib/dates.ts';

// Keyset pagination shared by every list endpoint: newest first on an insertion sequence,
// `pageSize` 1–500 (default 50), an opaque `cursor` naming the last row of the previous page.

export const PAGE_QUERY_DOCS: Record<'pageSize' | 'cursor', ParamDoc> = {
  pageSize: { description: 'Items per page, 1–500 (default 50).', schema: S.int({ minimum: 1, maximum: 500, default: 50 }) },
  cursor: { description: 'nextCursor of the previous page.', schema: S.string() },
};

/** The bound Query.date applies (src/lib/dates.ts), said once for every date parameter's doc. */
export const DATE_BOUNDS = `from ${EARLIEST_DATE} to one year after today (else 422)`;
export const DATE_PATTERN = '^(\\d{2}-\\d{2}-\\d{4}|\\d{4}-\\d{2}-\\d{2})$';

export const DATE_RANGE_QUERY_DOCS: Record<'desde' | 'hasta', ParamDoc> = {
  desde: { description: `Issue date from (inclusive), dd-MM-yyyy or yyyy-MM-dd, ${DATE_BOUNDS}.`, schema: S.string({ pattern: DATE_PATTERN }) },
  hasta: { description: `Issue date to (inclusive), dd-MM-yyyy or yyyy-MM-dd, ${DATE_BOUNDS}.`, schema: S.string({ pattern: DATE_PATTERN }) },
};

/** The 200 answer of a list endpoint whose items are `itemSchema`. */
export function pageResponse(itemSchema: string): ResponseDoc {
  return { description: 'A page.', schema: envelope(S.object({ items: S.array(S.ref(itemSchema)), nextCursor: S.nullable(S.string()) })) };
}

export function readPage(q: Query): { pageSize: number; after: string | undefined } {
  return { pageSize: q.int('pageSize', 50, 1, 500), after: q.cursor('cursor') };
}
