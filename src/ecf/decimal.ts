// Exact decimal arithmetic on scaled BigInts, so that amounts are compared digit for digit
// as the client wrote them; binary floating point never touches a money value.

/** value = units / 10^scale */
export interface Dec {
  readonly units: bigint;
  readonly scale: number;
}

const LEXICAL_DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

export const ZERO: Dec = { units: 0n, scale: 0 };

/** Parses the xs:decimal lexical form (no exponent, no spaces); undefined when it is not one. */
export function parseDecimal(text: string): Dec | undefined {
  const match = LEXICAL_DECIMAL.exec(text);
  if (match === null) return undefined;
  const [, sign = '', int = '', frac = ''] = match;
  if (int === '' && frac === '') return undefined;
  const units = BigInt(`${int}${frac}` || '0');
  return { units: sign === '-' ? -units : units, scale: frac.length };
}

export function dec(text: string): Dec {
  const value = parseDecimal(text);
  if (value === undefined) throw new Error(`not a decimal: ${text}`);
  return value;
}

/** Digits as XSD counts them for totalDigits / fractionDigits (leading and trailing zeros dropped). */
export function significantDigits(text: string): { total: number; fraction: number } | undefined {
  const match = LEXICAL_DECIMAL.exec(text);
  if (match === null) return undefined;
  const int = (match[2] ?? '').replace(/^0+/, '');
  const frac = (match[3] ?? '').replace(/0+$/, '');
  return { total: Math.max(1, int.length + frac.length), fraction: frac.length };
}

export function unitsAt(value: Dec, scale: number): bigint {
  if (scale < value.scale) throw new Error('unitsAt cannot drop digits; use roundHalfUp');
  return value.units * 10n ** BigInt(scale - value.scale);
}

function aligned(a: Dec, b: Dec): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [unitsAt(a, scale), unitsAt(b, scale), scale];
}

export function add(...values: readonly Dec[]): Dec {
  return values.reduce((sum, v) => {
    const [x, y, scale] = aligned(sum, v);
    return { units: x + y, scale };
  }, ZERO);
}

export function sub(a: Dec, b: Dec): Dec {
  return add(a, negate(b));
}

export function negate(a: Dec): Dec {
  return { units: -a.units, scale: a.scale };
}

export function mul(a: Dec, b: Dec): Dec {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

export function compare(a: Dec, b: Dec): -1 | 0 | 1 {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function abs(a: Dec): Dec {
  return a.units < 0n ? negate(a) : a;
}

/** n / d rounded half away from zero (DGII's usual commercial rounding). */
export function divRound(n: bigint, d: bigint): bigint {
  if (d === 0n) throw new Error('division by zero');
  const negative = (n < 0n) !== (d < 0n);
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return negative ? -q : q;
}

export function roundHalfUp(value: Dec, scale: number): Dec {
  if (scale >= value.scale) return { units: unitsAt(value, scale), scale };
  return { units: divRound(value.units, 10n ** BigInt(value.scale - scale)), scale };
}

/** a / b rounded to `scale` decimals. */
export function divide(a: Dec, b: Dec, scale: number): Dec {
  // a/b = (a.units / 10^a.scale) / (b.units / 10^b.scale); shift so the quotient lands at `scale`.
  const exponent = scale + b.scale - a.scale;
  const n = exponent >= 0 ? a.units * 10n ** BigInt(exponent) : a.units;
  const d = exponent >= 0 ? b.units : b.units * 10n ** BigInt(-exponent);
  return { units: divRound(n, d), scale };
}

/** |a - b| <= tolerance */
export function within(a: Dec, b: Dec, tolerance: Dec): boolean {
  return compare(abs(sub(a, b)), tolerance) <= 0;
}

/** Plain decimal text with at least `minScale` decimals, for messages. */
export function formatDec(value: Dec, minScale = 2): string {
  const v = value.scale < minScale ? { units: unitsAt(value, minScale), scale: minScale } : value;
  const negative = v.units < 0n;
  const digits = (negative ? -v.units : v.units).toString().padStart(v.scale + 1, '0');
  const int = digits.slice(0, digits.length - v.scale);
  const frac = v.scale > 0 ? `.${digits.slice(digits.length - v.scale)}` : '';
  return `${negative ? '-' : ''}${int}${frac}`;
}
