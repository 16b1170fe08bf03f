// A page of a keyset-paginated list, as services return it: newest first on an insertion
// sequence, with an opaque cursor naming the last row of the page. The HTTP side (query
// parameters, documentation) is src/http/paging.ts.

export interface Page<V> {
  items: V[];
  nextCursor: string | null;
}

export function encodeCursor(position: string): string {
  return Buffer.from(`c1:${position}`, 'utf8').toString('base64url');
}

/** Queries ask for pageSize + 1 rows: the extra one only tells that another page exists. */
export function toPage<R extends { seq: string }, V>(rows: readonly R[], pageSize: number, view: (row: R) => V): Page<V> {
  const page = rows.slice(0, pageSize);
  const last = page[page.length - 1];
  return { items: page.map(view), nextCursor: rows.length > pageSize && last !== undefined ? encodeCursor(last.seq) : null };
}
