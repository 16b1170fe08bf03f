// A tenant's logo: PNG and JPEG files made by an independent tool (poppler's pdftoppm) or written
// here byte by byte, read by our image reader, embedded by our PDF writer, and checked by poppler
// again (pdfimages lists what the PDF embeds, pdftoppm renders it) and qpdf.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { ImageError, PdfDocument, readImage } from '../src/lib/pdf/index.ts';
import { renderEcfPdf, type PrintFormat } from '../src/ecf/print/index.ts';
import { validateEcf } from '../src/ecf/validation/validate-ecf.ts';
import { sampleEcf } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, newTenant } from './helpers/http.ts';
import { PdfTools } from './helpers/pdf-tools.ts';
import { startTestService, type TestService } from './helpers/service.ts';

const dir = mkdtempSync(join(tmpdir(), 'logo-'));
const tools = new PdfTools();
after(() => {
  rmSync(dir, { recursive: true, force: true });
  tools.close();
});

/** A 100×40 pt page, black on its left half: rendered at 72 dpi, a 100×40 pixel picture. */
function sourcePdf(): string {
  const doc = new PdfDocument();
  doc.addPage(100, 40).rect(0, 0, 50, 40, { fill: 0 });
  const file = join(dir, 'source.pdf');
  writeFileSync(file, doc.toBuffer());
  return file;
}

/** The picture as pdftoppm writes it: png (RGB), jpeg, progressive jpeg, cmyk jpeg. */
function made(kind: 'png' | 'jpeg' | 'progressive' | 'cmyk'): Buffer {
  const args = {
    png: ['-png'], jpeg: ['-jpeg'], progressive: ['-jpeg', '-jpegopt', 'progressive=y'], cmyk: ['-jpegcmyk'],
  }[kind];
  const prefix = join(dir, kind);
  const run = spawnSync('pdftoppm', ['-r', '72', ...args, '-singlefile', sourcePdf(), prefix], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(`${prefix}.${kind.endsWith('png') ? 'png' : 'jpg'}`);
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(8 + data.length + 4);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}

/** A PNG written here: `rows` are unfiltered scanlines. */
function png(width: number, height: number, colorType: number, depth: number, rows: Buffer[], extra: Buffer[] = [], interlace = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = colorType;
  ihdr[12] = interlace;
  const raw = Buffer.concat(rows.map((r) => Buffer.concat([Buffer.from([0]), r])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), ...extra, chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** 40×20 RGBA: opaque black on the left half, fully transparent (but red) on the right. */
function alphaPng(): Buffer {
  const row = Buffer.alloc(40 * 4);
  for (let x = 0; x < 40; x++) row.set(x < 20 ? [0, 0, 0, 255] : [255, 0, 0, 0], x * 4);
  return png(40, 20, 6, 8, Array.from({ length: 20 }, () => row));
}

/** 40×20, 4-bit gray: black on the left half, white on the right. */
function grayPng(): Buffer {
  const row = Buffer.concat([Buffer.alloc(10, 0x00), Buffer.alloc(10, 0xff)]);
  return png(40, 20, 0, 4, Array.from({ length: 20 }, () => row));
}

/** 40×20, 1-bit palette: index 0 black, index 1 transparent (tRNS) green. */
function palettePng(): Buffer {
  const row = Buffer.from([0x00, 0x00, 0x0f, 0xff, 0xff]); // 20 pixels of 0, 20 of 1
  return png(40, 20, 3, 1, Array.from({ length: 20 }, () => row), [chunk('PLTE', Buffer.from([0, 0, 0, 0, 255, 0])), chunk('tRNS', Buffer.from([255, 0]))]);
}

function withIhdrByte(file: Buffer, offset: number, value: number): Buffer {
  const copy = Buffer.from(file);
  copy[16 + offset] = value;
  copy.writeUInt32BE(crc32(copy.subarray(12, 29)), 29);
  return copy;
}

function pdfImages(pdf: Buffer): string[][] {
  const file = join(dir, `list-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  const run = spawnSync('pdfimages', ['-list', file], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.split('\n').slice(2).filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/));
}

const stored = (() => {
  const r = validateEcf(sampleEcf(31));
  if (!r.ok) throw new Error('fixture');
  return r.document;
})();

function printWith(logo: Buffer | null, format: PrintFormat): Buffer {
  return renderEcfPdf({ tipo: stored.tipo, ecf: stored.ecf, logo: logo === null ? null : readImage(logo), signature: { securityCode: 'Ab3x9Z', fechaHoraFirma: '15-03-2025 10:22:33', timbreUrl: 'https://ecf.dgii.gov.do/ecf/ConsultaTimbre?x=1' } }, format);
}

describe('image reader', () => {
  test('PNG (RGB, gray, RGBA, 1-bit palette with tRNS) and JPEG (baseline, progressive) are read with their size', () => {
    for (const [name, file, expected] of [
      ['png', made('png'), { w: 100, h: 40, cs: 'DeviceRGB', f: 'FlateDecode', alpha: false }],
      ['4-bit gray png', grayPng(), { w: 40, h: 20, cs: 'DeviceGray', f: 'FlateDecode', alpha: false }],
      ['rgba png', alphaPng(), { w: 40, h: 20, cs: 'DeviceRGB', f: 'FlateDecode', alpha: true }],
      ['palette png', palettePng(), { w: 40, h: 20, cs: 'DeviceRGB', f: 'FlateDecode', alpha: true }],
      ['jpeg', made('jpeg'), { w: 100, h: 40, cs: 'DeviceRGB', f: 'DCTDecode', alpha: false }],
      ['progressive jpeg', made('progressive'), { w: 100, h: 40, cs: 'DeviceRGB', f: 'DCTDecode', alpha: false }],
    ] as const) {
      const image = readImage(file);
      assert.deepEqual({ w: image.width, h: image.height, cs: image.colorSpace, f: image.filter, alpha: image.alpha !== null }, expected, name);
    }
  });

  test('interlaced, damaged, truncated, oversized, CMYK and foreign files are refused with a reason, before any large allocation', () => {
    const good = made('png');
    const idat = good.indexOf('IDAT', 0, 'latin1');
    const damaged = Buffer.from(good);
    damaged[idat + 10] = (damaged[idat + 10] as number) ^ 0xff;
    const huge = png(1, 1, 0, 8, [Buffer.from([0])]);
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    huge.writeUInt32BE(crc32(huge.subarray(12, 29)), 29);
    for (const [name, file, reason] of [
      ['interlaced', withIhdrByte(good, 12, 1), /interlaced \(Adam7\) PNG is not supported/],
      ['damaged', damaged, /bad checksum in IDAT/],
      ['truncated', good.subarray(0, good.length - 20), /truncated/],
      ['oversized', huge, /100000×100000 pixels/],
      ['16-bit palette', withIhdrByte(withIhdrByte(good, 9, 3), 8, 16), /unknown colour type, bit depth/],
      ['cmyk', made('cmyk'), /CMYK JPEG is not supported/],
      ['gif', Buffer.from('GIF89a\x01\x00\x01\x00'), /neither a PNG nor a JPEG/],
      ['empty', Buffer.alloc(0), /neither a PNG nor a JPEG/],
      ['jpeg without frame', Buffer.from([0xff, 0xd8, 0xff, 0xd9]), /no image data/],
    ] as const) {
      assert.throws(() => readImage(file), (e: unknown) => e instanceof ImageError && reason.test(e.message), name);
    }
  });
});

describe('the logo on the printed e-CF', () => {
  test('every format embeds the logo (pdfimages), JPEG as DCT and PNG with its soft mask, and qpdf accepts the file', () => {
    for (const format of ['carta', 'a4', 'ticket80'] as const) {
      assert.deepEqual(pdfImages(printWith(null, format)), [], `${format}: no logo, no image`);
      const jpeg = pdfImages(printWith(made('jpeg'), format));
      assert.equal(jpeg.length, 1, format);
      assert.deepEqual([jpeg[0]?.[2], jpeg[0]?.[3], jpeg[0]?.[4], jpeg[0]?.[5], jpeg[0]?.[8]], ['image', '100', '40', 'rgb', 'jpeg'], format);
      const rgba = pdfImages(printWith(alphaPng(), format));
      assert.deepEqual(rgba.map((r) => [r[2], r[3], r[4], r[5]]), [['image', '40', '20', 'rgb'], ['smask', '40', '20', 'gray']], format);
      for (const logo of [made('png'), made('progressive'), palettePng()]) {
        const pdf = printWith(logo, format);
        const { status, output } = tools.check(pdf);
        assert.equal(status, 0, output);
      }
    }
  });

  test('rendered, the logo sits at the top left of a sheet and the top centre of a receipt, its transparent part showing the paper', () => {
    for (const [format, left, top] of [['carta', 36, 36], ['a4', 36, 36], ['ticket80', (226.77 - 40) / 2, 10]] as const) {
      const image = tools.render(printWith(alphaPng(), format));
      const inside = (x: number, y: number): number => image.pixel(Math.round(left + x), Math.round(top + y));
      assert.ok(inside(5, 10) < 60, `${format}: the opaque half is black`);
      assert.ok(inside(30, 10) > 230, `${format}: the transparent half shows white paper, not red`);
    }
    const sheet = tools.render(printWith(made('png'), 'carta'));
    assert.ok(sheet.pixel(36 + 20, 36 + 20) < 60 && sheet.pixel(36 + 80, 36 + 20) > 230, 'a PNG from pdftoppm prints as drawn');
    const gray = tools.render(printWith(grayPng(), 'carta'));
    assert.ok(gray.pixel(36 + 5, 36 + 10) < 60 && gray.pixel(36 + 30, 36 + 10) > 230, 'a 4-bit gray PNG prints as drawn');
    const palette = tools.render(printWith(palettePng(), 'carta'));
    assert.ok(palette.pixel(36 + 5, 36 + 10) < 60 && palette.pixel(36 + 30, 36 + 10) > 230, 'a palette PNG prints its tRNS-transparent colour as paper');
    const text = tools.text(printWith(made('png'), 'carta'), ['-layout']);
    assert.ok(text.includes('Distribuidora Caribe Digital SRL'), 'the issuer still prints, under the logo');
  });
});

describe('logo API', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ env: { ...FAST_PIPELINE, RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000' } });
  });
  after(async () => {
    await t.close();
  });

  const put = (token: string, body: Buffer, contentType: string) =>
    fetch(`${t.url}/api/logo`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });

  test('a PNG or JPEG upload prints on the tenant\'s own documents in every format; bad files get 413, 415 or 422; DELETE removes it', async () => {
    const a = await newTenantWithCertificate(t.url);
    const api = { 'x-api-key': a.apiKey };
    const emitted = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc, 31), headers: api });
    const id = emitted.body.data.internalTrackId as string;
    await waitForEstado(t.url, 'TesteCF', id, api, ['aceptado']);
    const images = async (formato: string, headers = api, path = `/TesteCF/documentos-ecf/${id}/pdf`) =>
      pdfImages(Buffer.from(await (await fetch(`${t.url}${path}?formato=${formato}`, { headers })).arrayBuffer()));
    assert.deepEqual(await images('carta'), []);

    const logo = made('png');
    const res = await put(a.accessToken, logo, 'image/png');
    assert.equal(res.status, 200);
    const body = await res.json() as { data: Record<string, unknown> };
    assert.deepEqual({ ...body.data, updatedAt: typeof body.data.updatedAt }, { mediaType: 'image/png', width: 100, height: 40, bytes: logo.length, updatedAt: 'string' });
    const back = await fetch(`${t.url}/api/logo`, { headers: { authorization: `Bearer ${a.accessToken}` } });
    assert.equal(back.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await back.arrayBuffer()), logo);
    for (const formato of ['carta', 'a4', 'ticket80']) assert.equal((await images(formato)).length, 1, formato);

    const jpeg = made('jpeg');
    assert.equal((await put(a.accessToken, jpeg, 'image/jpeg')).status, 200);
    assert.equal((await images('carta'))[0]?.[8], 'jpeg', 'the JPEG replaced the PNG');

    const refusals: [Buffer, string, number, RegExp][] = [
      [withIhdrByte(logo, 12, 1), 'image/png', 422, /interlaced/],
      [made('cmyk'), 'image/jpeg', 422, /CMYK/],
      [logo, 'image/jpeg', 422, /not a JPEG/],
      [Buffer.from('GIF89a'), 'image/gif', 415, /image\/png or image\/jpeg/],
      [Buffer.concat([logo, Buffer.alloc(300 * 1024)]), 'image/png', 413, /./],
      [png(2001, 1, 0, 1, [Buffer.alloc(251)]), 'image/png', 422, /2001×1 pixels; at most 2000 on a side/],
    ];
    for (const [file, type, status, message] of refusals) {
      const r = await put(a.accessToken, file, type);
      assert.equal(r.status, status, `${type} ${file.length}`);
      const err = await r.json() as { error: { message: string } };
      assert.match(err.error.message, message);
    }
    assert.equal((await images('carta'))[0]?.[8], 'jpeg', 'a refused upload leaves the logo as it was');

    const stranger = await newTenant(t.url);
    assert.equal((await fetch(`${t.url}/api/logo`, { headers: { authorization: `Bearer ${stranger.accessToken}` } })).status, 404, 'another tenant has none');
    assert.equal((await fetch(`${t.url}/api/logo`, { method: 'PUT', body: logo, headers: { 'content-type': 'image/png' } })).status, 401);

    assert.equal((await fetch(`${t.url}/api/logo`, { method: 'DELETE', headers: { authorization: `Bearer ${a.accessToken}` } })).status, 204);
    assert.deepEqual(await images('carta'), []);
    assert.equal((await fetch(`${t.url}/api/logo`, { method: 'DELETE', headers: { authorization: `Bearer ${a.accessToken}` } })).status, 404);
  });
});
