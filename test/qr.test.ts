import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeQr, qrToPbm, type QrCode, type QrEcc } from '../src/lib/qr/index.ts';
import { MASK_COUNT, penalty } from '../src/lib/qr/mask.ts';
import { formatBits, versionBits } from '../src/lib/qr/matrix.ts';
import { ecCodewords } from '../src/lib/qr/reed-solomon.ts';
import { byteCapacity } from '../src/lib/qr/tables.ts';
import { QrReader } from './helpers/qr-reader.ts';

const reader = new QrReader();
after(() => reader.remove());

const TIMBRE = 'https://ecf.dgii.gov.do/ecf/ConsultaTimbre?RncEmisor=131880681&RncComprador=101010101&ENCF=E310000000001&FechaEmision=01-04-2026&MontoTotal=118000.00&FechaFirma=01-04-2026%2010:00:00&CodigoSeguridad=a1B2c3';
const LEVELS = ['L', 'M', 'Q', 'H'] as const;

/** Printable ASCII of a given length that differs from one call to the next. */
function text(length: number, seed: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(33 + ((i * 7 + seed * 13) % 94));
  return s;
}

function grid(code: QrCode): Uint8Array {
  const modules = new Uint8Array(code.size * code.size);
  for (let y = 0; y < code.size; y++) for (let x = 0; x < code.size; x++) modules[y * code.size + x] = code.isDark(x, y) ? 1 : 0;
  return modules;
}

test('encodeQr computes the Reed–Solomon codewords of the published examples', () => {
  // "HELLO WORLD" at 1-Q (alphanumeric data; only the EC part matters here).
  const hello = ecCodewords(Uint8Array.from([32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236]), 13);
  assert.deepEqual([...hello], [168, 72, 22, 82, 217, 54, 156, 0, 46, 15, 180, 122, 16]);
  // "01234567" at 1-M, ISO/IEC 18004 Annex I.
  const iso = ecCodewords(Uint8Array.from([16, 32, 12, 86, 97, 128, 236, 17, 236, 17, 236, 17, 236, 17, 236, 17]), 10);
  assert.deepEqual([...iso], [165, 36, 212, 193, 237, 54, 199, 135, 44, 85]);
});

test('encodeQr writes format and version information as the standard tabulates it', () => {
  assert.equal(formatBits('M', 0), 0b101010000010010);
  assert.equal(formatBits('L', 0), 0b111011111000100);
  assert.equal(formatBits('Q', 7), 0b010101111101101);
  assert.equal(formatBits('H', 7), 0b000100000111011);
  assert.equal(versionBits(7), 0x07c94);
  assert.equal(versionBits(40), 0x28c69);
});

test('encodeQr picks the smallest version that holds the data, at the published byte capacities', () => {
  const capacities: Record<QrEcc, [number, number, number]> = { L: [17, 154, 2953], M: [14, 122, 2331], Q: [11, 86, 1663], H: [7, 64, 1273] };
  for (const ecc of LEVELS) {
    const [v1, v7, v40] = capacities[ecc];
    assert.equal(encodeQr('a'.repeat(v1), { ecc }).version, 1);
    assert.equal(encodeQr('a'.repeat(v1 + 1), { ecc }).version, 2);
    assert.equal(encodeQr('a'.repeat(v7), { ecc }).version, 7);
    assert.equal(encodeQr('a'.repeat(v7 + 1), { ecc }).version, 8);
    assert.equal(encodeQr('a'.repeat(v40), { ecc }).version, 40);
  }
  assert.equal(encodeQr('hi').ecc, 'M', 'M is the default level');
  assert.equal(encodeQr('hi', { minVersion: 5 }).version, 5);
});

test('encodeQr output decodes with zbarimg: short text and the DGII timbre URL', () => {
  const short = encodeQr('e-CF');
  const timbre = encodeQr(TIMBRE);
  assert.equal(short.version, 1);
  assert.equal(timbre.version, 10);
  assert.equal(timbre.size, 57);
  assert.deepEqual(reader.readTexts([short, timbre, encodeQr('e-CF', { minVersion: 8 })]), ['e-CF', TIMBRE, 'e-CF']);
});

test('encodeQr output decodes at every error-correction level', () => {
  const codes = LEVELS.map((ecc) => encodeQr(TIMBRE, { ecc }));
  assert.deepEqual(codes.map((c) => `${c.ecc}${c.version}`), ['L9', 'M10', 'Q13', 'H15']);
  assert.deepEqual(reader.readTexts(codes), LEVELS.map(() => TIMBRE));
});

test('encodeQr output decodes in versions small and large, with and without version information', () => {
  // Just over the previous version's capacity forces each version, so padding varies too.
  const versions = [2, 5, 6, 7, 9, 10, 14, 22, 27, 33, 40];
  const texts = versions.map((v, i) => text(byteCapacity(v - 1, LEVELS[i % 4] ?? 'M') + 1, v));
  const codes = versions.map((v, i) => encodeQr(texts[i] ?? '', { ecc: LEVELS[i % 4] ?? 'M' }));
  assert.deepEqual(codes.map((c) => c.version), versions);
  assert.deepEqual(reader.readTexts(codes), texts);
});

test('encodeQr output decodes with each of the eight masks', () => {
  // Version 7 at full capacity: version information, six alignment patterns, no padding.
  const data = text(byteCapacity(7, 'Q'), 7);
  const codes = Array.from({ length: MASK_COUNT }, (_, mask) => encodeQr(data, { ecc: 'Q', mask }));
  assert.deepEqual(codes.map((c) => c.mask), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(reader.readTexts(codes), codes.map(() => data));
});

test('encodeQr keeps UTF-8 text with accents intact', () => {
  // The ECI header makes this land exactly on a byte boundary at version 2-M, so the terminator
  // needs a byte of its own.
  const code = encodeQr('Facturación ñandú');
  assert.equal(code.version, 2);
  assert.deepEqual(reader.readTexts([code, encodeQr('Señal €5 — “ok”', { ecc: 'H' })]), ['Facturación ñandú', 'Señal €5 — “ok”']);
});

test('encodeQr stores binary bytes 0–255 unchanged', () => {
  const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  const code = encodeQr(bytes, { ecc: 'L' });
  assert.deepEqual([...reader.readBytes(code)], [...bytes]);
});

test('encodeQr chooses the mask with the lowest penalty', () => {
  for (const data of [TIMBRE, 'e-CF', text(500, 3)]) {
    const auto = encodeQr(data);
    const scores = Array.from({ length: MASK_COUNT }, (_, mask) => {
      const code = encodeQr(data, { mask });
      return penalty(grid(code), code.size);
    });
    assert.equal(scores[auto.mask], Math.min(...scores), `mask ${auto.mask} of ${scores.join(', ')}`);
    assert.deepEqual(grid(auto), grid(encodeQr(data, { mask: auto.mask })));
  }
});

test('encodeQr scores masks by the four penalty rules as a direct reading of them does', () => {
  let seed = 12345;
  const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let t = 0; t < 200; t++) {
    const size = 21 + 4 * (t % 40);
    const modules = new Uint8Array(size * size);
    const darkShare = (t % 10) / 10;
    for (let i = 0; i < modules.length; i++) modules[i] = random() < darkShare ? 1 : 0;
    if (t % 5 === 0) for (let i = 0; i < modules.length; i++) modules[i] = ((i % size) >> (t % 4)) & 1;
    assert.equal(penalty(modules, size), directPenalty(modules, size), `grid ${t} of size ${size}`);
  }
  const light = new Uint8Array(21 * 21);
  // 42 lines of 21 light (3 + 16 each), 400 light 2×2 blocks, no finder look-alike, 0 % dark.
  assert.equal(penalty(light, 21), 42 * 19 + 400 * 3 + 0 + 100);
});

test('encodeQr refuses data longer than version 40 holds with a RangeError', () => {
  assert.throws(() => encodeQr('a'.repeat(2332)), { name: 'RangeError', message: /2332 bytes.*level M is 2331 bytes/ });
  assert.throws(() => encodeQr(new Uint8Array(2954), { ecc: 'L' }), RangeError);
  assert.throws(() => encodeQr('ñ'.repeat(1200)), RangeError, 'UTF-8 bytes count, not characters');
  assert.throws(() => encodeQr('a'.repeat(10_000_000)), { name: 'RangeError', message: /at least 10000000 bytes/ });
  assert.throws(() => encodeQr('a', { ecc: 'X' as QrEcc }), RangeError);
  assert.throws(() => encodeQr('a', { minVersion: 41 }), RangeError);
  assert.throws(() => encodeQr('a', { minVersion: 1.5 }), RangeError);
  assert.throws(() => encodeQr('a', { mask: 8 }), RangeError);
  assert.equal(encodeQr('a'.repeat(2953), { ecc: 'L' }).version, 40);
});

test('qrToPbm writes a P4 image of the modules with the quiet zone around them', () => {
  const code = encodeQr('e-CF');
  const pbm = qrToPbm(code, { scale: 3, quietZone: 2 });
  const width = (21 + 4) * 3;
  const header = `P4\n${width} ${width}\n`;
  const rowBytes = Math.ceil(width / 8);
  assert.equal(pbm.subarray(0, header.length).toString('ascii'), header);
  assert.equal(pbm.length, header.length + rowBytes * width);
  let dark = 0;
  for (let py = 0; py < width; py++) {
    for (let px = 0; px < rowBytes * 8; px++) {
      const bit = ((pbm[header.length + py * rowBytes + (px >> 3)] ?? 0) >> (7 - (px & 7))) & 1;
      const expected = px < width && code.isDark(Math.floor(px / 3) - 2, Math.floor(py / 3) - 2) ? 1 : 0;
      assert.equal(bit, expected, `pixel ${px},${py}`);
      dark += bit;
    }
  }
  assert.ok(dark > 0 && code.isDark(0, 0) && !code.isDark(-1, 0) && !code.isDark(21, 0));
  assert.equal(qrToPbm(code, { scale: 1 }).subarray(0, 9).toString('ascii'), 'P4\n29 29\n', 'four modules of quiet zone by default');
  assert.throws(() => qrToPbm(code, { scale: 0 }), RangeError);
});

/** The penalty rules read literally: runs, 2×2 blocks, finder look-alikes against the quiet zone. */
function directPenalty(m: Uint8Array, size: number): number {
  const at = (x: number, y: number): number => (x < 0 || y < 0 || x >= size || y >= size ? 0 : m[y * size + x] ?? 0);
  let score = 0;
  for (const horizontal of [true, false]) {
    for (let a = 0; a < size; a++) {
      const line = (b: number): number => (horizontal ? at(b, a) : at(a, b));
      for (let b = 0; b < size; ) {
        let end = b;
        while (end < size && line(end) === line(b)) end++;
        if (end - b >= 5) score += 3 + (end - b - 5);
        b = end;
      }
      for (let b = 0; b + 7 <= size; b++) {
        if ([1, 0, 1, 1, 1, 0, 1].some((v, k) => line(b + k) !== v)) continue;
        if ([1, 2, 3, 4].every((k) => line(b - k) === 0)) score += 40;
        if ([7, 8, 9, 10].every((k) => line(b + k) === 0)) score += 40;
      }
    }
  }
  let dark = 0;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      dark += at(x, y);
      if (x + 1 < size && y + 1 < size && at(x, y) === at(x + 1, y) && at(x, y) === at(x, y + 1) && at(x, y) === at(x + 1, y + 1)) score += 3;
    }
  }
  return score + Math.floor(Math.abs((dark * 100) / (size * size) - 50) / 5) * 10;
}
