// DGII writes times in Santo Domingo local time, UTC−4 all year (no daylight saving).
const OFFSET_MS = -4 * 3_600_000;

/** ISO 8601 with the -04:00 offset, as in the seed's <fecha>. */
export function santoDomingoTimestamp(now: number): string {
  return new Date(now + OFFSET_MS).toISOString().replace('Z', '-04:00');
}

/** dd-MM-yyyy HH:mm:ss, as in fechaRecepcion. */
export function santoDomingoDateTime(at: number): string {
  const iso = new Date(at + OFFSET_MS).toISOString();
  return `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)} ${iso.slice(11, 19)}`;
}
