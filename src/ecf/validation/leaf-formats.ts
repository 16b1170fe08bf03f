// Formats stricter than (or friendlier than) the XSD pattern for a few simple types, keyed by
// the XSD type name so that every element of that type gets them, in every e-CF type.
// When one of these fails, its message replaces the generic "does not match pattern" one.

export interface LeafFormat {
  readonly id: string;
  readonly test: (text: string) => boolean;
  readonly message: string;
}

const DATE = /^(\d{2})-(\d{2})-(\d{4})$/;

/** dd-MM-yyyy naming a day that exists; years limited to 1900-2099 like the XSD pattern. */
export function isExistingDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [day, month, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1900 || year > 2099 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Days since the epoch for an existing dd-MM-yyyy date, to compare dates. */
export function dateOrdinal(text: string): number | undefined {
  if (!isExistingDate(text)) return undefined;
  const [day, month, year] = text.split('-').map(Number) as [number, number, number];
  return Date.UTC(year, month - 1, day) / 86_400_000;
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
