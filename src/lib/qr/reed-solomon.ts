// Reed–Solomon error correction over GF(256) as QR uses it (ISO/IEC 18004 §7.5.2): the field is
// built on the primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D) with generator α = 2, and the
// generator polynomial of degree n is (x − α^0)(x − α^1)…(x − α^(n−1)).

const PRIMITIVE = 0x11d;

// EXP is doubled so that EXP[LOG[a] + LOG[b]] needs no modulo 255.
const EXP = new Uint8Array(510);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  EXP[i + 255] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= PRIMITIVE;
}

export function gfMultiply(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return EXP[(LOG[a] ?? 0) + (LOG[b] ?? 0)] ?? 0;
}

const generators = new Map<number, Uint8Array>();

/**
 * Coefficients of the monic generator polynomial of a degree, highest power first, leading 1
 * omitted. Cached: a symbol uses one degree, and there are only 13 distinct ones in the tables.
 */
export function generatorPolynomial(degree: number): Uint8Array {
  const cached = generators.get(degree);
  if (cached !== undefined) return cached;
  if (!Number.isInteger(degree) || degree < 1 || degree > 254) throw new RangeError(`Reed–Solomon degree ${degree} is out of range`);
  // Multiply in one (x + α^i) at a time; in GF(2^8) subtraction is XOR, so − and + agree.
  const poly = new Uint8Array(degree + 1);
  poly[0] = 1;
  for (let i = 0; i < degree; i++) {
    const root = EXP[i] ?? 0;
    for (let j = i + 1; j >= 1; j--) poly[j] = (poly[j] ?? 0) ^ gfMultiply(poly[j - 1] ?? 0, root);
  }
  const result = poly.subarray(1);
  generators.set(degree, result);
  return result;
}

// Per degree, generator coefficient j times every field element f at [f * degree + j]: the inner
// loop of the division is then a lookup and an XOR. 256 × 30 bytes at most, for 13 degrees.
const products = new Map<number, Uint8Array>();

function productTable(degree: number): Uint8Array {
  const cached = products.get(degree);
  if (cached !== undefined) return cached;
  const generator = generatorPolynomial(degree);
  const table = new Uint8Array(256 * degree);
  for (let f = 1; f < 256; f++) {
    for (let j = 0; j < degree; j++) table[f * degree + j] = gfMultiply(f, generator[j] ?? 0);
  }
  products.set(degree, table);
  return table;
}

/**
 * The EC codewords of a block: the remainder of data(x)·x^degree divided by the generator,
 * computed as a shift register (one data codeword in, the register shifted and corrected).
 */
export function ecCodewords(data: Uint8Array, degree: number): Uint8Array {
  const table = productTable(degree);
  const remainder = new Uint8Array(degree);
  const last = degree - 1;
  for (let i = 0; i < data.length; i++) {
    const row = ((data[i] ?? 0) ^ (remainder[0] ?? 0)) * degree;
    for (let j = 0; j < last; j++) remainder[j] = (remainder[j + 1] ?? 0) ^ (table[row + j] ?? 0);
    remainder[last] = table[row + last] ?? 0;
  }
  return remainder;
}
