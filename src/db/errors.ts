// Errors that mean "the database cannot be reached right now" rather than "this query is
// wrong": they become 503 for HTTP callers and a retry for background jobs.
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  // the postgres driver's own connection errors
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
]);
// SQLSTATE classes 08 (connection exception) and 57P0x (server shutting down), 53300 (too many connections).
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-4]|53300)$/;

export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return UNAVAILABLE_NODE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code);
}

/** SQLSTATE 23505: a unique constraint refused the row. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; constraint_name?: unknown };
  return e.code === '23505' && (constraint === undefined || e.constraint_name === constraint);
}
