// Built from src/ecf/decimal.ts by `npm run build:dashboard`: edit that file, not this one.
export const ZERO = { units: 0, scale: 0 };
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
const SAFE_DIGITS = 15;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
function big(u) {
    return typeof u === 'bigint' ? u : BigInt(u);
}
function narrow(u) {
    return u >= MIN_SAFE && u <= MAX_SAFE ? Number(u) : u;
}
function isNegative(u) {
    return u < 0;
}
function isDigitsAndDot(text, from) {
    let dot = false;
    for (let i = from; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 46 && !dot)
            dot = true;
        else if (c < 48 || c > 57)
            return false;
    }
    return true;
}
function signLength(text) {
    const c = text.charCodeAt(0);
    return c === 43 || c === 45 ? 1 : 0;
}
export function parseDecimal(text) {
    const from = signLength(text);
    const negative = from === 1 && text.charCodeAt(0) === 45;
    let units = 0;
    let digits = 0;
    let scale = 0;
    let dot = false;
    for (let i = from; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c >= 48 && c <= 57) {
            units = units * 10 + (c - 48);
            digits++;
            if (dot)
                scale++;
        }
        else if (c === 46 && !dot) {
            dot = true;
        }
        else {
            return undefined;
        }
    }
    if (digits === 0)
        return undefined;
    if (digits > SAFE_DIGITS) {
        const all = BigInt(text.slice(from).replace('.', ''));
        return { units: narrow(negative ? -all : all), scale };
    }
    return { units: negative && units !== 0 ? -units : units, scale };
}
export function dec(text) {
    const value = parseDecimal(text);
    if (value === undefined)
        throw new Error(`not a decimal: ${text}`);
    return value;
}
export function significantDigits(text) {
    const from = signLength(text);
    if (!isDigitsAndDot(text, from))
        return undefined;
    const dot = text.indexOf('.', from);
    const intEnd = dot < 0 ? text.length : dot;
    let intStart = from;
    while (intStart < intEnd && text.charCodeAt(intStart) === 48)
        intStart++;
    let fracEnd = text.length;
    if (dot >= 0)
        while (fracEnd > dot + 1 && text.charCodeAt(fracEnd - 1) === 48)
            fracEnd--;
    const fraction = dot < 0 ? 0 : fracEnd - dot - 1;
    return { total: Math.max(1, intEnd - intStart + fraction), fraction };
}
function shift(u, k) {
    if (k === 0)
        return u;
    if (typeof u === 'number' && k <= SAFE_DIGITS) {
        const r = u * POW10[k];
        if (Number.isSafeInteger(r))
            return r;
    }
    return big(u) * 10n ** BigInt(k);
}
function plus(x, y) {
    if (typeof x === 'number' && typeof y === 'number') {
        const r = x + y;
        if (Number.isSafeInteger(r))
            return r;
    }
    return narrow(big(x) + big(y));
}
function times(x, y) {
    if (typeof x === 'number' && typeof y === 'number') {
        const r = x * y;
        if (Number.isSafeInteger(r))
            return r === 0 ? 0 : r;
    }
    return narrow(big(x) * big(y));
}
function minus(u) {
    return typeof u === 'number' ? (u === 0 ? 0 : -u) : narrow(-u);
}
export function unitsAt(value, scale) {
    if (scale < value.scale)
        throw new Error('unitsAt cannot drop digits; use roundHalfUp');
    return shift(value.units, scale - value.scale);
}
export function add(...values) {
    let units = 0;
    let scale = 0;
    for (const v of values) {
        if (v.scale > scale) {
            units = shift(units, v.scale - scale);
            scale = v.scale;
        }
        units = plus(units, shift(v.units, scale - v.scale));
    }
    return { units, scale };
}
export function sub(a, b) {
    return add(a, negate(b));
}
export function negate(a) {
    return { units: minus(a.units), scale: a.scale };
}
export function mul(a, b) {
    return { units: times(a.units, b.units), scale: a.scale + b.scale };
}
export function compare(a, b) {
    const scale = Math.max(a.scale, b.scale);
    const x = shift(a.units, scale - a.scale);
    const y = shift(b.units, scale - b.scale);
    return x < y ? -1 : x > y ? 1 : 0;
}
export function abs(a) {
    return isNegative(a.units) ? negate(a) : a;
}
function divRound(n, d) {
    if (d === 0 || d === 0n)
        throw new Error('division by zero');
    const negative = isNegative(n) !== isNegative(d);
    if (typeof n === 'number' && typeof d === 'number') {
        const an = Math.abs(n);
        const ad = Math.abs(d);
        const r = an % ad;
        const q = (an - r) / ad + (2 * r >= ad ? 1 : 0);
        return negative && q !== 0 ? -q : q;
    }
    const bn = big(n);
    const bd = big(d);
    const an = bn < 0n ? -bn : bn;
    const ad = bd < 0n ? -bd : bd;
    const q = (2n * an + ad) / (2n * ad);
    return narrow(negative ? -q : q);
}
export function roundHalfUp(value, scale) {
    if (scale >= value.scale)
        return { units: unitsAt(value, scale), scale };
    return { units: divRound(value.units, shift(1, value.scale - scale)), scale };
}
export function divide(a, b, scale) {
    const exponent = scale + b.scale - a.scale;
    const n = exponent >= 0 ? shift(a.units, exponent) : a.units;
    const d = exponent >= 0 ? b.units : shift(b.units, -exponent);
    return { units: divRound(n, d), scale };
}
export function within(a, b, tolerance) {
    return compare(abs(sub(a, b)), tolerance) <= 0;
}
export function formatDec(value, minScale = 2) {
    const v = value.scale < minScale ? { units: unitsAt(value, minScale), scale: minScale } : value;
    const negative = isNegative(v.units);
    const digits = (negative ? minus(v.units) : v.units).toString().padStart(v.scale + 1, '0');
    const int = digits.slice(0, digits.length - v.scale);
    const frac = v.scale > 0 ? `.${digits.slice(digits.length - v.scale)}` : '';
    return `${negative ? '-' : ''}${int}${frac}`;
}
