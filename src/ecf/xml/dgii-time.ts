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

const DGII_DATE_TIME = /^(\d{2})-(\d{2})-(\d{4})[ T](\d{2}):(\d{2}):(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,7})?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An instant DGII wrote: `dd-MM-yyyy HH:mm:ss` in Dominican time, or ISO 8601 (Dominican time
 * when it carries no offset). null when it is neither, or not a real date.
 */
export function parseDgiiDateTime(text: string): Date | null {
  const value = text.trim();
  let fields: [number, number, number, number, number, number];
  let offsetMs = DOMINICAN_OFFSET_MS;
  let fractionMs = 0;
  const dgii = DGII_DATE_TIME.exec(value);
  const iso = dgii === null ? ISO_DATE_TIME.exec(value) : null;
  if (dgii !== null) {
    fields = [Number(dgii[3]), Number(dgii[2]), Number(dgii[1]), Number(dgii[4]), Number(dgii[5]), Number(dgii[6])];
  } else if (iso !== null) {
    fields = [Number(iso[1]), Number(iso[2]), Number(iso[3]), Number(iso[4]), Number(iso[5]), Number(iso[6])];
    fractionMs = iso[7] === undefined ? 0 : Math.floor(Number(`0${iso[7]}`) * 1000);
    const zone = iso[8];
    if (zone !== undefined) {
      const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
      offsetMs = m === null ? 0 : (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
    }
  } else {
    return null;
  }
  const [year, month, day, hours, minutes, seconds] = fields;
  const local = Date.UTC(year, month - 1, day, hours, minutes, seconds);
  const check = new Date(local);
  // Date.UTC rolls 31-02 over to March: a date that does not exist is not a date.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hours > 23 || minutes > 59 || seconds > 59) return null;
  return new Date(local - offsetMs + fractionMs);
}

/** ISO 8601 in Dominican time with its -04:00 offset, as in the seed's <fecha>. */
export function dominicanTimestamp(at: number): string {
  return new Date(at + DOMINICAN_OFFSET_MS).toISOString().replace('Z', '-04:00');
}
