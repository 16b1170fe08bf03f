// DGII's check digits of a Dominican tax id, shared by the service and the dashboard (which
// loads this file as it is: no imports, nothing but the arithmetic).
//
// - RNC (9 digits): modulus 11 over the first 8 digits with weights 7 9 8 6 5 4 3 2; with r the
//   remainder of the weighted sum by 11, the check digit is 2 when r = 0, 1 when r = 1, else 11 − r.
// - Cédula (11 digits): Luhn over the first 10 digits with weights 1 2 1 2 …, a product above 9
//   counting as the sum of its digits; the check digit brings the total to a multiple of 10.

const RNC_WEIGHTS = [7, 9, 8, 6, 5, 4, 3, 2] as const;

export type TaxIdCheck =
  | { readonly kind: 'rnc' | 'cedula'; readonly valid: true }
  | { readonly kind: 'rnc' | 'cedula'; readonly valid: false; readonly expected: number }
  | { readonly kind: 'format'; readonly valid: false };

function digitsOf(text: string): number[] {
  return Array.from(text, (c) => c.charCodeAt(0) - 48);
}

/** The check digit of an RNC's first 8 digits. */
export function rncCheckDigit(first8: string): number {
  const sum = digitsOf(first8).reduce((acc, d, i) => acc + d * (RNC_WEIGHTS[i] ?? 0), 0);
  const r = sum % 11;
  return r === 0 ? 2 : r === 1 ? 1 : 11 - r;
}

/** The check digit of a cédula's first 10 digits. */
export function cedulaCheckDigit(first10: string): number {
  const sum = digitsOf(first10).reduce((acc, d, i) => {
    const p = d * (i % 2 === 0 ? 1 : 2);
    return acc + (p > 9 ? p - 9 : p);
  }, 0);
  return (10 - (sum % 10)) % 10;
}

/** Whether `text` (digits only, no dashes) is an RNC or cédula whose last digit is its check digit. */
export function checkTaxId(text: string): TaxIdCheck {
  if (/^\d{9}$/.test(text)) {
    const expected = rncCheckDigit(text.slice(0, 8));
    return expected === Number(text[8]) ? { kind: 'rnc', valid: true } : { kind: 'rnc', valid: false, expected };
  }
  if (/^\d{11}$/.test(text)) {
    const expected = cedulaCheckDigit(text.slice(0, 10));
    return expected === Number(text[10]) ? { kind: 'cedula', valid: true } : { kind: 'cedula', valid: false, expected };
  }
  return { kind: 'format', valid: false };
}

/** An RNC or cédula with a right check digit, and not all zeros. */
export function isValidTaxId(text: string): boolean {
  return checkTaxId(text).valid && !/^0+$/.test(text);
}

/**
 * Why a 9- or 11-digit number is not an RNC or cédula DGII would take (wrong check digit, or
 * all zeros), naming the digit expected; undefined when it is one. Other lengths are the XSD's
 * business and answer undefined here.
 */
export function taxIdProblem(id: string): string | undefined {
  const check = checkTaxId(id);
  if (check.kind === 'format') return undefined;
  if (/^0+$/.test(id)) return `${id} is not a taxpayer's number`;
  if (check.valid) return undefined;
  return check.kind === 'rnc'
    ? `${id} is not a valid RNC: its check digit (modulus 11) must be ${check.expected}, i.e. ${id.slice(0, 8)}${check.expected}`
    : `${id} is not a valid cédula: its check digit (Luhn) must be ${check.expected}, i.e. ${id.slice(0, 10)}${check.expected}`;
}
