import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GrayImage {
  width: number;
  height: number;
  /** 0 black … 255 white. */
  pixel(x: number, y: number): number;
}

/** Independent readers of PDF files (qpdf and poppler), working on files in one temporary directory. */
export class PdfTools {
  private readonly dir = mkdtempSync(join(tmpdir(), 'pdf-tools-'));
  private count = 0;

  write(pdf: Buffer): string {
    const file = join(this.dir, `doc-${++this.count}.pdf`);
    writeFileSync(file, pdf);
    return file;
  }

  /** `qpdf --check`: exit status 0 means no errors and no warnings. */
  check(pdf: Buffer): { status: number | null; output: string } {
    const run = spawnSync('qpdf', ['--check', this.write(pdf)], { encoding: 'utf8' });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  }

  text(pdf: Buffer, args: string[] = []): string {
    return this.run('pdftotext', [...args, '-enc', 'UTF-8', this.write(pdf), '-']);
  }

  info(pdf: Buffer, args: string[] = []): string {
    return this.run('pdfinfo', [...args, '-enc', 'UTF-8', this.write(pdf)]);
  }

  /** Renders one page at 72 dpi in gray, so a pixel is a point. */
  render(pdf: Buffer, page = 1): GrayImage {
    const prefix = join(this.dir, `page-${++this.count}`);
    this.run('pdftoppm', ['-r', '72', '-gray', '-f', String(page), '-l', String(page), '-singlefile', this.write(pdf), prefix]);
    return parsePgm(readFileSync(`${prefix}.pgm`));
  }

  /** The QR codes zbarimg finds on one page rendered at `dpi`, one text each. */
  readQrCodes(pdf: Buffer, page = 1, dpi = 200): string[] {
    const prefix = join(this.dir, `qr-${++this.count}`);
    this.run('pdftoppm', ['-r', String(dpi), '-gray', '-f', String(page), '-l', String(page), '-singlefile', this.write(pdf), prefix]);
    const run = spawnSync('zbarimg', ['--nodbus', '--raw', '-q', '-Sdisable', '-Sqrcode.enable', `${prefix}.pgm`], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`zbarimg found no QR code (status ${run.status}): ${run.stderr}`);
    return run.stdout.split('\n').filter((line) => line !== '');
  }

  /** The content streams of every page, uncompressed by qpdf, in page order. */
  contentStreams(pdf: Buffer): string[] {
    const out = join(this.dir, `qdf-${++this.count}.pdf`);
    this.run('qpdf', ['--qdf', '--object-streams=disable', '--stream-data=uncompress', this.write(pdf), out]);
    const text = readFileSync(out, 'latin1');
    return [...text.matchAll(/%% Contents for page \d+\n(?:%%[^\n]*\n)*\d+ 0 obj\n<<[^>]*>>\nstream\n([\s\S]*?)endstream/g)].map((m) => m[1] ?? '');
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private run(command: string, args: string[]): string {
    const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (run.status !== 0) throw new Error(`${command} failed (${run.status}): ${run.stderr}`);
    return run.stdout;
  }
}

/** A binary (P5) PGM with 8-bit samples, as pdftoppm -gray writes it. */
export function parsePgm(data: Buffer): GrayImage {
  const fields: string[] = [];
  let at = 0;
  while (fields.length < 4) {
    while (at < data.length && /\s/.test(String.fromCharCode(data[at] ?? 0))) at++;
    if (data[at] === 0x23) {
      while (at < data.length && data[at] !== 0x0a) at++;
      continue;
    }
    const start = at;
    while (at < data.length && !/\s/.test(String.fromCharCode(data[at] ?? 0))) at++;
    fields.push(data.subarray(start, at).toString('latin1'));
  }
  const [magic, w, h, max] = fields;
  if (magic !== 'P5' || max !== '255') throw new Error(`not an 8-bit binary PGM: ${fields.join(' ')}`);
  const width = Number(w);
  const height = Number(h);
  const pixels = data.subarray(at + 1); // exactly one whitespace byte ends the header
  if (pixels.length < width * height) throw new Error('PGM is truncated');
  return {
    width,
    height,
    pixel: (x, y) => {
      if (x < 0 || y < 0 || x >= width || y >= height) throw new RangeError(`pixel ${x},${y} is outside the page`);
      return pixels[y * width + x] ?? 0;
    },
  };
}
