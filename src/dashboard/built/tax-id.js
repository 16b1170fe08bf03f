// Built from src/ecf/tax-id.ts by `npm run build:dashboard`: edit that file, not this one.
const RNC_WEIGHTS = [7, 9, 8, 6, 5, 4, 3, 2];
function digitsOf(text) {
    return Array.from(text, (c) => c.charCodeAt(0) - 48);
}
export function rncCheckDigit(first8) {
    const sum = digitsOf(first8).reduce((acc, d, i) => acc + d * (RNC_WEIGHTS[i] ?? 0), 0);
    const r = sum % 11;
    return r === 0 ? 2 : r === 1 ? 1 : 11 - r;
}
export function cedulaCheckDigit(first10) {
    const sum = digitsOf(first10).reduce((acc, d, i) => {
        const p = d * (i % 2 === 0 ? 1 : 2);
        return acc + (p > 9 ? p - 9 : p);
    }, 0);
    return (10 - (sum % 10)) % 10;
}
export function checkTaxId(text) {
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
export function isValidTaxId(text) {
    return checkTaxId(text).valid && !/^0+$/.test(text);
}
export function taxIdProblem(id) {
    const check = checkTaxId(id);
    if (check.kind === 'format')
        return undefined;
    if (/^0+$/.test(id))
        return `${id} is not a taxpayer's number`;
    if (check.valid)
        return undefined;
    return check.kind === 'rnc'
        ? `${id} is not a valid RNC: its check digit (modulus 11) must be ${check.expected}, i.e. ${id.slice(0, 8)}${check.expected}`
        : `${id} is not a valid cédula: its check digit (Luhn) must be ${check.expected}, i.e. ${id.slice(0, 10)}${check.expected}`;
}
