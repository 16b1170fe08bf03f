// Formats stricter than (or friendlier than) the XSD pattern for a few simple types, keyed by
// the XSD type name so that every element of that type gets them, in every e-CF type.
// When one of these fails, its message replaces the generic "does not match pattern" one.

export interface LeafFormat {
  readonly id: string;
  readonly test: (text: string) => boolean;
  readonly message: string;
}

/** Days in each month of a common year; February gains one in leap years. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digitsAt(text: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * Days since the epoch for an existing dd-MM-yyyy date (years 1900-2099 like the XSD
 * pattern), to compare dates; undefined for any other text. Read digit by digit: it runs on
 * every date of every emitted document.
 */
export function dateOrdinal(text: string): number | undefined {
  if (text.length !== 10 || text.charCodeAt(2) !== 45 || text.charCodeAt(5) !== 45) return undefined; // '-'
  const day = digitsAt(text, 0, 2);
  const month = digitsAt(text, 3, 2);
  const year = digitsAt(text, 6, 4);
  if (day < 1 || month < 1 || month > 12 || year < 1900 || year > 2099) return undefined;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (MONTH_DAYS[month - 1] as number) + (month === 2 && leap ? 1 : 0)) return undefined;
  return Date.UTC(year, month - 1, day) / 86_400_000;
}

/** dd-MM-yyyy naming a day that exists; years limited to 1900-2099 like the XSD pattern. */
export function isExistingDate(text: string): boolean {
  return dateOrdinal(text) !== undefined;
}

export const ENCF_FORMAT = /^E(\d{2})(\d{10})$/;

export const LEAF_FORMATS: Readonly<Record<string, LeafFormat>> = {
  FechaValidationType: {
    id: 'date',
    test: isExistingDate,
    message: 'must be a date that exists, written dd-MM-yyyy (e.g. 05-03-2025)',
  },
  RNCValidationType: {
    id: 'rnc',
    test: (text) => /^(\d{9}|\d{11})$/.test(text),
    message: 'must be an RNC (9 digits) or a cédula (11 digits), digits only',
  },
  eNCFValidationType: {
    id: 'encf-format',
    test: (text) => ENCF_FORMAT.test(text),
    message: 'must be "E", the 2-digit e-CF type and a 10-digit sequence number (e.g. E310000000001)',
  },
  TelefonoValidationType: {
    id: 'phone',
    test: (text) => /^\d{3}-\d{3}-\d{4}$/.test(text),
    message: 'must be a phone number written 999-999-9999',
  },
};
