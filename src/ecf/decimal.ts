// Exact decimal arithmetic on scaled integers, so that amounts are compared digit for digit
// as the client wrote them; binary floating point never rounds a money value.
//
// The scaled integer is a Number while it is a safe integer (|u| ≤ 2^53 − 1), as nearly every
// amount is, and a BigInt beyond: arithmetic on two safe integers whose exact result is safe
// is exact in binary floating point, and an exact result beyond the safe range always comes
// out unsafe (rounding is monotonic and 2^53 is representable), so each operation checks its
// result with Number.isSafeInteger and redoes it on BigInts when it is not. Most validations
// then allocate no BigInt at all.

type Units = number | bigint;

/** value = units / 10^scale; units is a safe-integer Number or a BigInt. */
export interface Dec {
  readonly units: Units;
  readonly scale: number;
}

export const ZERO: Dec = { units: 0, scale: 0 };

/** Powers of ten that are exact Numbers (10^22 is the last; 10^15 keeps products checkable). */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
/** Digits that always fit a safe integer (10^15 − 1 < 2^53). */
const SAFE_DIGITS = 15;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function big(u: Units): bigint {
  return typeof u === 'bigint' ? u : BigInt(u);
}

/** Back to a Number when the BigInt fits, so later operations take the fast path again. */
function narrow(u: bigint): Units {
  return u >= MIN_SAFE && u <= MAX_SAFE ? Number(u) : u;
}

function isNegative(u: Units): boolean {
  return u < 0;
}

/** Whether text[from..] is digits with at most one dot (no digit at all passes too). */
function isDigitsAndDot(text: string, from: number): boolean {
  let dot = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && !dot) dot = true;
    else if (c < 48 || c > 57) return false;
  }
  return true;
}

function signLength(text: string): number {
  const c = text.charCodeAt(0);
  return c === 43 || c === 45 ? 1 : 0; // '+' or '-'
}

/** Parses the xs:decimal lexical form (no exponent, no spaces); undefined when it is not one. */
export function parseDecimal(text: string): Dec | undefined {
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
      if (dot) scale++;
    } else if (c === 46 && !dot) {
      dot = true;
    } else {
      return undefined;
    }
  }
  if (digits === 0) return undefined;
  if (digits > SAFE_DIGITS) {
    const all = BigInt(text.slice(from).replace('.', ''));
    return { units: narrow(negative ? -all : all), scale };
  }
  return { units: negative && units !== 0 ? -units : units, scale };
}

export function dec(text: string): Dec {
  const value = parseDecimal(text);
  if (value === undefined) throw new Error(`not a decimal: ${text}`);
  return value;
}

/** Digits as XSD counts them for totalDigits / fractionDigits (leading and trailing zeros dropped). */
export function significantDigits(text: string): { total: number; fraction: number } | undefined {
  const from = signLength(text);
  if (!isDigitsAndDot(text, from)) return undefined;
  const dot = text.indexOf('.', from);
  const intEnd = dot < 0 ? text.length : dot;
  let intStart = from;
  while (intStart < intEnd && text.charCodeAt(intStart) === 48) intStart++;
  let fracEnd = text.length;
  if (dot >= 0) while (fracEnd > dot + 1 && text.charCodeAt(fracEnd - 1) === 48) fracEnd--;
  const fraction = dot < 0 ? 0 : fracEnd - dot - 1;
  return { total: Math.max(1, intEnd - intStart + fraction), fraction };
}

/** units · 10^k */
function shift(u: Units, k: number): Units {
  if (k === 0) return u;
  if (typeof u === 'number' && k <= SAFE_DIGITS) {
    const r = u * (POW10[k] as number);
    if (Number.isSafeInteger(r)) return r;
  }
  return big(u) * 10n ** BigInt(k);
}

function plus(x: Units, y: Units): Units {
  if (typeof x === 'number' && typeof y === 'number') {
    const r = x + y;
    if (Number.isSafeInteger(r)) return r;
  }
  return narrow(big(x) + big(y));
}

function times(x: Units, y: Units): Units {
  if (typeof x === 'number' && typeof y === 'number') {
    const r = x * y;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
  }
  return narrow(big(x) * big(y));
}

function minus(u: Units): Units {
  return typeof u === 'number' ? (u === 0 ? 0 : -u) : narrow(-u);
}

/** The units of `value` at a scale at least its own. */
export function unitsAt(value: Dec, scale: number): Units {
  if (scale < value.scale) throw new Error('unitsAt cannot drop digits; use roundHalfUp');
  return shift(value.units, scale - value.scale);
}

export function add(...values: readonly Dec[]): Dec {
  let units: Units = 0;
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

export function sub(a: Dec, b: Dec): Dec {
  return add(a, negate(b));
}

export function negate(a: Dec): Dec {
  return { units: minus(a.units), scale: a.scale };
}

export function mul(a: Dec, b: Dec): Dec {
  return { units: times(a.units, b.units), scale: a.scale + b.scale };
}

export function compare(a: Dec, b: Dec): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const x = shift(a.units, scale - a.scale);
  const y = shift(b.units, scale - b.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function abs(a: Dec): Dec {
  return isNegative(a.units) ? negate(a) : a;
}

/** n / d rounded half away from zero (DGII's usual commercial rounding). */
function divRound(n: Units, d: Units): Units {
  if (d === 0 || d === 0n) throw new Error('division by zero');
  const negative = isNegative(n) !== isNegative(d);
  if (typeof n === 'number' && typeof d === 'number') {
    // Exact on safe integers: % is exact, and so is (an − r) / ad, a whole quotient.
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

export function roundHalfUp(value: Dec, scale: number): Dec {
  if (scale >= value.scale) return { units: unitsAt(value, scale), scale };
  return { units: divRound(value.units, shift(1, value.scale - scale)), scale };
}

/** a / b rounded to `scale` decimals. */
export function divide(a: Dec, b: Dec, scale: number): Dec {
  // a/b = (a.units / 10^a.scale) / (b.units / 10^b.scale); shift so the quotient lands at `scale`.
  const exponent = scale + b.scale - a.scale;
  const n = exponent >= 0 ? shift(a.units, exponent) : a.units;
  const d = exponent >= 0 ? b.units : shift(b.units, -exponent);
  return { units: divRound(n, d), scale };
}

/** |a - b| <= tolerance */
export function within(a: Dec, b: Dec, tolerance: Dec): boolean {
  return compare(abs(sub(a, b)), tolerance) <= 0;
}

/** Plain decimal text with at least `minScale` decimals, for messages. */
export function formatDec(value: Dec, minScale = 2): string {
  const v = value.scale < minScale ? { units: unitsAt(value, minScale), scale: minScale } : value;
  const negative = isNegative(v.units);
  const digits = (negative ? minus(v.units) : v.units).toString().padStart(v.scale + 1, '0');
  const int = digits.slice(0, digits.length - v.scale);
  const frac = v.scale > 0 ? `.${digits.slice(digits.length - v.scale)}` : '';
  return `${negative ? '-' : ''}${int}${frac}`;
}
