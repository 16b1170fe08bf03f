// Measures a rendered PDF page the way a reviewer with a ruler would: pdftoppm renders it, the QR
// code is found as the one square cluster of dark pixels and confirmed by zbarimg reading that
// crop alone; pdftotext -bbox gives each word's box. Nothing here reads our own drawing code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePgm, type GrayImage } from './pdf-tools.ts';

/** A box in PDF points from the page's top-left corner, y downward. */
export interface Box {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

export interface Word extends Box {
  readonly text: string;
}

export interface MeasuredPage {
  readonly width: number;
  readonly height: number;
  /** The QR code's symbol, found in the pixels. */
  readonly qr: Box;
  /** What zbarimg reads from the crop of that box alone. */
  readonly qrText: string;
  readonly words: readonly Word[];
}

const DPI = 144;
const SCALE = DPI / 72;
const DARK = 128;
/** Dark pixels this close (in pixels) belong to one cluster: less than the QR's clear margin. */
const REACH = 4;

export class PageMeasure {
  private readonly dir = mkdtempSync(join(tmpdir(), 'page-measure-'));
  private count = 0;

  measure(pdf: Buffer, page = 1): MeasuredPage {
    const file = join(this.dir, `doc-${++this.count}.pdf`);
    writeFileSync(file, pdf);
    const prefix = join(this.dir, `page-${this.count}`);
    run('pdftoppm', ['-r', String(DPI), '-gray', '-f', String(page), '-l', String(page), '-singlefile', file, prefix]);
    const image = parsePgm(readFileSync(`${prefix}.pgm`));
    const symbol = largestSquareCluster(image);
    if (symbol === undefined) throw new Error('no square cluster of dark pixels on the page');
    const crop = join(this.dir, `crop-${this.count}.pgm`);
    writeFileSync(crop, cropPgm(image, symbol, 16));
    const zbar = spawnSync('zbarimg', ['--nodbus', '--raw', '-q', '-Sdisable', '-Sqrcode.enable', crop], { encoding: 'utf8' });
    if (zbar.status !== 0) throw new Error(`zbarimg read nothing in the square cluster (${zbar.status})`);
    const bbox = run('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-']);
    const words = [...bbox.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)]
      .map((m) => ({ left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]), text: decode(m[5] ?? '') }));
    const size = /<page width="([\d.]+)" height="([\d.]+)">/.exec(bbox);
    return {
      width: Number(size?.[1]), height: Number(size?.[2]),
      qr: { left: symbol.left / SCALE, top: symbol.top / SCALE, right: symbol.right / SCALE, bottom: symbol.bottom / SCALE },
      qrText: zbar.stdout.trim(), words,
    };
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The first word equal to `text`, in reading order. */
export function findWord(words: readonly Word[], text: string): Word | undefined {
  return words.find((w) => w.text === text);
}

function decode(s: string): string {
  return s.replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&apos;', "'");
}

function run(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${command} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Clusters of dark pixels joined within REACH; the biggest whose box is square and at least 1 cm. */
function largestSquareCluster(image: GrayImage): Box | undefined {
  const { width, height } = image;
  const seen = new Uint8Array(width * height);
  let best: Box | undefined;
  for (let y0 = 0; y0 < height; y0++) {
    for (let x0 = 0; x0 < width; x0++) {
      if (seen[y0 * width + x0] === 1 || image.pixel(x0, y0) >= DARK) continue;
      let left = x0, right = x0, top = y0, bottom = y0;
      const stack = [y0 * width + x0];
      seen[y0 * width + x0] = 1;
      while (stack.length > 0) {
        const at = stack.pop() as number;
        const x = at % width;
        const y = (at - x) / width;
        left = Math.min(left, x); right = Math.max(right, x); top = Math.min(top, y); bottom = Math.max(bottom, y);
        for (let dy = -REACH; dy <= REACH; dy++) {
          for (let dx = -REACH; dx <= REACH; dx++) {
            const nx = x + dx, ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
            const n = ny * width + nx;
            if (seen[n] === 1 || image.pixel(nx, ny) >= DARK) continue;
            seen[n] = 1;
            stack.push(n);
          }
        }
      }
      const w = right + 1 - left, h = bottom + 1 - top;
      const cm = (SCALE * 72) / 2.54;
      if (w >= cm && Math.abs(w - h) <= 3 * SCALE && (best === undefined || w > best.right - best.left)) {
        best = { left, top, right: right + 1, bottom: bottom + 1 };
      }
    }
  }
  return best;
}

/** A P5 PGM of `box` with `pad` white pixels around it. */
function cropPgm(image: GrayImage, box: Box, pad: number): Buffer {
  const w = box.right - box.left + 2 * pad;
  const h = box.bottom - box.top + 2 * pad;
  const pixels = Buffer.alloc(w * h, 255);
  for (let y = 0; y < box.bottom - box.top; y++) {
    for (let x = 0; x < box.right - box.left; x++) pixels[(y + pad) * w + x + pad] = image.pixel(box.left + x, box.top + y);
  }
  return Buffer.concat([Buffer.from(`P5\n${w} ${h}\n255\n`, 'latin1'), pixels]);
}
