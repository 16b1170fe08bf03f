import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { zipStream, type ZipEntry } from '../src/lib/zip/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'ecf-zip-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function write(name: string, entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>): Promise<string> {
  const file = join(dir, name);
  await pipeline(Readable.from(zipStream(entries)), createWriteStream(file));
  return file;
}

function unzip(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync('unzip', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, out: r.stdout + r.stderr };
}

test('a streamed ZIP passes unzip -t and gives back each entry byte for byte, UTF-8 names included', async () => {
  const modified = new Date(2025, 5, 1, 10, 30, 42);
  const entries: ZipEntry[] = [
    { name: 'a.xml', data: '<a>uno</a>', modified },
    { name: 'factura-ñandú.xml', data: Buffer.from('<b>ñ € 😀</b>'), modified },
    { name: 'empty.txt', data: '', modified },
    { name: 'big.bin', data: Buffer.alloc(300_000, 7), modified },
  ];
  const file = await write('small.zip', entries);
  const t = unzip('-t', file);
  assert.equal(t.status, 0, t.out);
  assert.match(t.out, /No errors detected/);
  for (const e of entries) {
    const r = spawnSync('unzip', ['-p', file, e.name]);
    assert.deepEqual(r.stdout, Buffer.from(e.data), e.name);
  }
  assert.match(unzip('-l', file).out, /2025-06-01 10:30/);
});

test('an archive of no entries is valid', async () => {
  const file = await write('empty.zip', []);
  assert.equal(statSync(file).size, 22);
  assert.match(unzip('-l', file).out, /zipfile is empty/);
});

test('more than 65,535 entries switch to ZIP64 records, and unzip -t still passes', async () => {
  const count = 65_540;
  async function* many(): AsyncGenerator<ZipEntry> {
    const modified = new Date(2025, 0, 1);
    for (let i = 0; i < count; i++) yield { name: `d/${i}.xml`, data: `<n>${i}</n>`, modified };
  }
  const file = await write('zip64.zip', many());
  const t = unzip('-tq', file);
  assert.equal(t.status, 0, t.out.slice(-2000));
  assert.match(t.out, /No errors detected/);
  assert.match(unzip('-l', file).out, /\s65540 files\n$/);
  assert.equal(spawnSync('unzip', ['-p', file, 'd/65539.xml'], { encoding: 'utf8' }).stdout, '<n>65539</n>');
});
