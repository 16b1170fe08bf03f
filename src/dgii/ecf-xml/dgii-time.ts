// DGII writes date-times as dd-MM-yyyy HH:mm:ss in Dominican time, which is GMT-4 all year
// (the Republic has no daylight saving), so the offset is a constant, not a time-zone lookup.

const DOMINICAN_OFFSET_MS = -4 * 60 * 60 * 1000;

const two = (n: number): string => String(n).padStart(2, '0');

/** `dd-MM-yyyy HH:mm:ss` in Dominican time: FechaHoraFirma, FechaHoraAcuseRecibo and the like. */
export function formatFechaHoraFirma(date: Date): string {
  const time = date.getTime();
  if (Number.isNaN(time)) throw new RangeError('formatFechaHoraFirma needs a valid Date');
  const local = new Date(time + DOMINICAN_OFFSET_MS);
  const day = `${two(local.getUTCDate())}-${two(local.getUTCMonth() + 1)}-${String(local.getUTCFullYear()).padStart(4, '0')}`;
  return `${day} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
}
