// DGII's check digits of the Dominican taxpayer numbers: a 9-digit RNC ends in a modulus-11
// digit (weights 7,9,8,6,5,4,3,2), an 11-digit cédula in a Luhn digit (weights 1,2 alternating
// from the left). Both algorithms are public; docs/dgii.md cites them with real examples.

const RNC_WEIGHTS = [7, 9, 8, 6, 5, 4, 3, 2] as const;

/** The check digit of an RNC from its first 8 digits. */
export function rncCheckDigit(first8: string): number {
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(first8[i]) * (RNC_WEIGHTS[i] ?? 0);
  const r = sum % 11;
  return r === 0 ? 2 : r === 1 ? 1 : 11 - r;
}

/** The check digit of a cédula from its first 10 digits. */
export function cedulaCheckDigit(first10: string): number {
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const p = Number(first10[i]) * (i % 2 === 0 ? 1 : 2);
    sum += p > 9 ? p - 9 : p;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * Why a 9- or 11-digit number is not an RNC or cédula DGII would take (wrong check digit, or
 * all zeros), naming the digit expected; undefined when it is one. Other lengths are the XSD's
 * business and answer undefined here.
 */
export function taxIdProblem(id: string): string | undefined {
  if (!/^(\d{9}|\d{11})$/.test(id)) return undefined;
  if (/^0+$/.test(id)) return `${id} is not a taxpayer's number`;
  const last = Number(id[id.length - 1]);
  if (id.length === 9) {
    const expected = rncCheckDigit(id);
    return last === expected ? undefined : `${id} is not a valid RNC: its check digit (modulus 11) must be ${expected}, i.e. ${id.slice(0, 8)}${expected}`;
  }
  const expected = cedulaCheckDigit(id);
  return last === expected ? undefined : `${id} is not a valid cédula: its check digit (Luhn) must be ${expected}, i.e. ${id.slice(0, 10)}${expected}`;
}

/** Whether the text is a 9-digit RNC or 11-digit cédula with a right check digit. */
export function isValidTaxId(id: string): boolean {
  return /^(\d{9}|\d{11})$/.test(id) && taxIdProblem(id) === undefined;
}
