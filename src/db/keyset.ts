import type postgres from 'postgres';
import type { Queryable } from './connect.ts';

// The tail every list of issued documents shares (the tenant's own e-CF and those it received):
// optional equality filters, the issue-date range, the keyset cursor, newest first, one row more
// than the page (src/lib/page.ts reads that row as "there is a next page").

export interface IssuedPageFilter {
  /** yyyy-MM-dd, inclusive. */
  desde?: string | undefined;
  hasta?: string | undefined;
  /** The seq of the last row of the previous page. */
  after?: string | undefined;
  limit: number;
}

/** `and <column> = <value>` for each given value; nothing for an undefined one. */
export function whereEqual(sql: Queryable, filters: Readonly<Record<string, string | number | undefined>>): postgres.PendingQuery<postgres.Row[]> {
  const given = Object.entries(filters).filter((e): e is [string, string | number] => e[1] !== undefined);
  return given.reduce((acc, [column, value]) => sql`${acc} and ${sql(column)} = ${value}`, sql``);
}

/** The issue-date range, the cursor, the order and the limit of a page. */
export function issuedPage(sql: Queryable, f: IssuedPageFilter): postgres.PendingQuery<postgres.Row[]> {
  const no = sql``;
  return sql`
    ${f.desde === undefined ? no : sql`and fecha_emision >= ${f.desde}::date`}
    ${f.hasta === undefined ? no : sql`and fecha_emision <= ${f.hasta}::date`}
    ${f.after === undefined ? no : sql`and seq < ${f.after}::bigint`}
    order by seq desc
    limit ${f.limit}`;
}
