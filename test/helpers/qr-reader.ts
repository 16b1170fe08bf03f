// Reads QR codes back with zbarimg, a decoder that shares no code with ours: PBM images written to a
// throwaway directory, one zbarimg run per batch.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { qrToPbm, type QrCode } from '../../src/lib/qr/index.ts';

// QR only: with every symbology on, zbar now and then also "finds" a DataBar in the modules.
const ZBAR = ['--nodbus', '--raw', '-q', '-Sdisable', '-Sqrcode.enable'];

export class QrReader {
  readonly dir: string;
  private files = 0;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'ecf-qr-'));
  }

  /** The texts of the codes, one image each; the texts must not contain a newline. */
  readTexts(codes: readonly QrCode[]): string[] {
    const run = this.zbar(codes.map((code) => this.write(code)), []);
    const texts = run.toString('utf8').split('\n');
    assert.equal(texts.pop(), '', 'zbarimg ends every symbol with a newline');
    assert.equal(texts.length, codes.length, `zbarimg read ${texts.length} of ${codes.length} codes`);
    return texts;
  }

  /** The bytes of one code exactly as stored, with no character set guessed (zbar's -Sbinary). */
  readBytes(code: QrCode): Buffer {
    return this.zbar([this.write(code)], ['-Sbinary']);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private write(code: QrCode): string {
    const file = join(this.dir, `code-${this.files++}.pbm`);
    writeFileSync(file, qrToPbm(code, { scale: 3 }));
    return file;
  }

  private zbar(files: string[], extra: string[]): Buffer {
    const run = spawnSync('zbarimg', [...ZBAR, ...extra, ...files], { maxBuffer: 16 * 1024 * 1024 });
    assert.equal(run.status, 0, `zbarimg found no code (status ${run.status}): ${run.stderr.toString()}`);
    return run.stdout;
  }
}
