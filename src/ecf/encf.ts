// An eNCF is E, the two-digit type and a ten-digit sequence number: E310000000001.

export const MAX_ENCF_NUMBER = 9_999_999_999;

export function formatEncf(tipo: number, n: number): string {
  return `E${tipo}${String(n).padStart(10, '0')}`;
}

/** The type and sequence number of an eNCF; null when it is not of that form. */
export function parseEncf(encf: string): { tipo: number; n: number } | null {
  const m = /^E(\d{2})(\d{10})$/.exec(encf);
  if (m === null) return null;
  return { tipo: Number(m[1]), n: Number(m[2]) };
}

/** Today in the Dominican Republic (GMT-4, no daylight saving), as yyyy-MM-dd. */
export function dominicanToday(now = Date.now()): string {
  return new Date(now - 4 * 3_600_000).toISOString().slice(0, 10);
}

/** yyyy-MM-dd → dd-MM-yyyy, DGII's form. */
export function toDgiiDate(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${d}-${m}-${y}`;
}

/** yyyy-MM-dd plus `days`. */
export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
