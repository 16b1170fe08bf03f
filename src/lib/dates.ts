/** A calendar date given as dd-MM-yyyy (DGII's form) or yyyy-MM-dd; null if neither or not a real date. */
export function parseCalendarDate(text: string): string | null {
  const dgii = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text);
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const [y, m, d] = dgii !== null ? [dgii[3], dgii[2], dgii[1]] : iso !== null ? [iso[1], iso[2], iso[3]] : [];
  if (y === undefined || m === undefined || d === undefined) return null;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  const valid = date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
  return valid ? `${y}-${m}-${d}` : null;
}

/**
 * The dates a request may name (a filter, a range): from 2000-01-01 (before e-CF existed) to one
 * year after today (UTC). Wider is a 422; the bound keeps every loop and query over dates finite.
 */
export const EARLIEST_DATE = '2000-01-01';

/** yyyy-MM-dd one year after `now`'s UTC day. */
export function latestDate(now = Date.now()): string {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear() + 1, d.getUTCMonth(), d.getUTCDate())).toISOString().slice(0, 10);
}

/** Why the yyyy-MM-dd `iso` is outside EARLIEST_DATE … latestDate(now), or null. */
export function dateOutOfBounds(iso: string, now = Date.now()): string | null {
  const latest = latestDate(now);
  return iso < EARLIEST_DATE || iso > latest ? `must be between ${EARLIEST_DATE} and ${latest}` : null;
}

/** DGII's token dates: yyyy-MM-ddTHH:mm:ssZ, UTC without milliseconds (Descripción Técnica v1.6). */
export function dgiiTokenDate(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
