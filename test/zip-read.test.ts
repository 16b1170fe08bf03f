import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipError, ZipReader } from '../src/lib/zip/read.ts';
import { zipStream } from '../src/lib/zip/index.ts';

// The ZIP reader against archives made by an independent implementation (Python's zipfile), by
// the service's own writer, and hostile ones: wrong sizes, CRC, encryption, too many entries,
// reading past the total.

const dir = mkdtempSync(join(tmpdir(), 'zip-read-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

function pythonZip(script: string): Buffer {
  const file = join(dir, `py-${Math.random()}.zip`);
  const run = spawnSync('python3', ['-c', `import zipfile, sys\nz = zipfile.ZipFile(sys.argv[1], 'w')\n${script}\nz.close()`, file], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(file);
}

test('entries stored and deflated by Python\'s zipfile read back byte for byte, UTF-8 names included', () => {
  const zip = new ZipReader(pythonZip([
    "z.writestr(zipfile.ZipInfo('a/stored.txt'), 'hola mundo')",
    "z.writestr('xl/hoja ñ.xml', '<x>' + 'y' * 100000 + '</x>', compress_type=zipfile.ZIP_DEFLATED)",
  ].join('\n')));
  assert.deepEqual(zip.names(), ['a/stored.txt', 'xl/hoja ñ.xml']);
  assert.equal(zip.read('a/stored.txt')?.toString(), 'hola mundo');
  assert.equal(zip.read('xl/hoja ñ.xml')?.toString(), `<x>${'y'.repeat(100000)}</x>`);
  assert.equal(zip.read('missing'), null);
});

test('an archive of the service\'s own streaming writer (data descriptors) reads back', async () => {
  const chunks: Buffer[] = [];
  const modified = new Date('2026-01-01T00:00:00Z');
  for await (const c of zipStream([{ name: 'uno.xml', data: '<a/>', modified }, { name: 'dos.bin', data: Buffer.alloc(200_000, 7), modified }])) chunks.push(c);
  const zip = new ZipReader(Buffer.concat(chunks));
  assert.equal(zip.read('uno.xml')?.toString(), '<a/>');
  assert.deepEqual(zip.read('dos.bin'), Buffer.alloc(200_000, 7));
});

test('damaged, lying, encrypted, oversized archives and reads past the total are refused with a ZipError', () => {
  const good = pythonZip("z.writestr('a.txt', 'x' * 1000, compress_type=zipfile.ZIP_DEFLATED)");
  assert.throws(() => new ZipReader(Buffer.from('not a zip at all, just text that is long enough')), ZipError);
  const crc = Buffer.from(good);
  const central = crc.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  crc.writeUInt32LE(crc.readUInt32LE(central + 16) ^ 1, central + 16);
  assert.throws(() => new ZipReader(crc).read('a.txt'), /CRC-32/);
  const lying = Buffer.from(good);
  lying.writeUInt32LE(10, central + 24);
  assert.throws(() => new ZipReader(lying).read('a.txt'), /larger than it says|not the size/);
  const encrypted = Buffer.from(good);
  encrypted.writeUInt16LE(encrypted.readUInt16LE(central + 8) | 1, central + 8);
  assert.throws(() => new ZipReader(encrypted), /encrypted/);
  const many = pythonZip("for i in range(20): z.writestr(f'f{i}.txt', 'x')");
  assert.throws(() => new ZipReader(many, { maxEntries: 10 }), /more than 10 entries/);
  const zeros = pythonZip("z.writestr('zeros.bin', b'\\0' * 5000000, compress_type=zipfile.ZIP_DEFLATED)");
  assert.equal(new ZipReader(zeros).read('zeros.bin')?.length, 5_000_000);
  assert.throws(() => new ZipReader(zeros, { maxEntryBytes: 1_000_000 }).read('zeros.bin'), /larger than 1000000 bytes/);
  const twice = new ZipReader(zeros, { maxTotalBytes: 8_000_000 });
  twice.read('zeros.bin');
  assert.throws(() => twice.read('zeros.bin'), /more than 8000000 bytes/, 'what is read counts, however often');
  assert.throws(() => new ZipReader(good, { maxArchiveBytes: 10 }), /larger than 10 bytes/);
});
