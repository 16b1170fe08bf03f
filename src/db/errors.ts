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

/** SQLSTATE 23514: a check (or a trigger raising as one) refused the row. */
export function isCheckViolation(err: unknown, constraint: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; constraint_name?: unknown };
  return e.code === '23514' && e.constraint_name === constraint;
}

/** SQLSTATE 23505: a unique constraint refused the row. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; constraint_name?: unknown };
  return e.code === '23505' && (constraint === undefined || e.constraint_name === constraint);
}

// Text PostgreSQL cannot store: 22021 character_not_in_repertoire (what U+0000 in a text
// parameter gets) and 22P05 untranslatable_character. The driver always sends valid UTF-8,
// and the service itself never produces such characters, so inside an HTTP request they can
// only come from the client: the answer is a 4xx, though the input path that let them through
// still deserves a fix. 22P02 invalid_text_representation is left out on purpose: it comes
// from casts ('abc'::uuid, 'x'::int) that the code must validate before querying, and a
// server-built value can fail them just as well, so it stays a 500 that tests notice.
const UNSTORABLE_TEXT_SQLSTATE = new Set(['22021', '22P05']);

export function isUnstorableText(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && UNSTORABLE_TEXT_SQLSTATE.has(code);
}
