import type postgres from 'postgres';

// A statement sent unnamed is planned at every execution, with its parameters and each
// table's size as it is then. A named (prepared) statement, the driver's default, is planned
// for its first five executions and then, if no dearer, keeps a generic plan for as long as
// its connection lives, or until its tables are analyzed again. A generic plan made while a
// table was nearly empty reads it whole (a sequential scan is then the cheapest plan), and
// keeps doing so once it holds thousands of rows, live or dead: the queue's claims read all
// of `jobs` that way between two analyses (docs/architecture.md, "Background jobs"). Planning
// each time costs PostgreSQL a fraction of a millisecond, and the driver a second round trip
// (it asks for the parameters' types before binding them), so only the statements whose
// table changes size by the minute are sent so.

/** `query`, sent as an unnamed statement: planned anew at each execution (see above). */
export function unnamed<R extends readonly object[]>(query: postgres.PendingQuery<R>): postgres.PendingQuery<R> {
  // The driver reads this option when it sends the query, after the current microtask; a
  // tagged template's query gets an options object of its own. Not in its type definitions.
  (query as unknown as { options: { prepare?: boolean } }).options.prepare = false;
  return query;
}
