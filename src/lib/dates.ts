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

/** DGII's token dates: yyyy-MM-ddTHH:mm:ssZ, UTC without milliseconds (Descripción Técnica v1.6). */
export function dgiiTokenDate(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
