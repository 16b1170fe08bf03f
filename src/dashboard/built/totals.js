// Built from src/ecf/totals.ts by `npm run build:dashboard`: edit that file, not this one.
import { add, divide, dec, mul, negate, roundHalfUp, ZERO } from "./decimal.js";
export const ITBIS_RATES = { 1: '18', 2: '16', 3: '0' };
export function lineAmount(quantity, price, discount = ZERO, surcharge = ZERO) {
    return add(mul(quantity, price), negate(discount), surcharge);
}
export function lineMonto(quantity, price, discount = ZERO, surcharge = ZERO) {
    return roundHalfUp(lineAmount(quantity, price, discount, surcharge), 2);
}
export function taxableBase(linesSum, ratePercent, itbisIncluded) {
    return itbisIncluded ? divide(linesSum, add(dec('1'), divide(dec(ratePercent), dec('100'), 4)), 2) : linesSum;
}
export function itbisOf(taxable, ratePercent) {
    return roundHalfUp(divide(mul(taxable, dec(ratePercent)), dec('100'), 6), 2);
}
export function documentTotals(lines, itbisIncluded = false) {
    const sumOf = (indicator) => {
        const amounts = lines.filter((l) => l.indicator === indicator).map((l) => l.amount);
        return amounts.length === 0 ? null : add(...amounts);
    };
    const byRate = [1, 2, 3].flatMap((indicator) => {
        const sum = sumOf(indicator);
        if (sum === null)
            return [];
        const rate = ITBIS_RATES[indicator];
        const base = taxableBase(sum, rate, itbisIncluded);
        return [{ indicator, rate, base, itbis: itbisOf(base, rate) }];
    });
    const gravadoTotal = byRate.length === 0 ? null : add(...byRate.map((r) => r.base));
    const totalItbis = byRate.length === 0 ? null : add(...byRate.map((r) => r.itbis));
    const exento = sumOf(4);
    const total = add(gravadoTotal ?? ZERO, totalItbis ?? ZERO, exento ?? ZERO);
    return { byRate, gravadoTotal, totalItbis, exento, noFacturable: sumOf(0), total };
}
