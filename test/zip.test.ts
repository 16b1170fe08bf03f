import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { CentralDirectory, zipStream, type ZipEntry } from '../src/lib/zip/index.ts';
import { openFilesUnder } from './helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ecf-zip-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function write(name: string, entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>, chunks: AsyncIterable<Buffer> = zipStream(entries)): Promise<string> {
  const file = join(dir, name);
  await pipeline(Readable.from(chunks), createWriteStream(file));
  return file;
}

/** A directory of its own for one writer's temporary file, to see it opened and gone. */
function spillDir(): string {
  return mkdtempSync(join(dir, 'spill-'));
}

const MODIFIED = new Date(2025, 5, 1, 8, 0, 0);

/** Entries of different sizes and contents, as a list of signed XMLs would give. */
function documents(count: number): ZipEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `131000001/E31${String(i).padStart(10, '0')}.xml`,
    data: `<ECF><eNCF>E31${String(i).padStart(10, '0')}</eNCF><Item>${'Artículo '.repeat(i % 40)}</Item></ECF>`,
    modified: MODIFIED,
  }));
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

test('a central directory over its memory limit spills to a file: the archive passes unzip -t and reads back exactly, and the file is closed and gone after', async () => {
  const tmpDir = spillDir();
  const entries = documents(5_000);
  let openWhileWriting: string[] = [];
  async function* watched(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let n = 0;
    for await (const chunk of chunks) {
      // 4,000 entries have put about 260 KB of directory through a 1 KiB limit.
      if (++n === 4_000) openWhileWriting = openFilesUnder(tmpDir);
      yield chunk;
    }
  }
  const file = await write('spilled.zip', entries, watched(zipStream(entries, { memoryLimit: 1024, tmpDir })));
  assert.equal(openWhileWriting.length, 1, 'the directory went to a temporary file');
  assert.match(openWhileWriting[0] ?? '', /\(deleted\)$/, 'unlinked while still open');

  const t = unzip('-tq', file);
  assert.equal(t.status, 0, t.out.slice(-2000));
  assert.deepEqual(unzip('-Z1', file).out.trimEnd().split('\n'), entries.map((e) => e.name));
  const all = spawnSync('unzip', ['-p', file], { maxBuffer: 64 * 1024 * 1024 });
  assert.deepEqual(all.stdout, Buffer.from(entries.map((e) => e.data).join('')), 'every entry byte for byte, in order');
  assert.deepEqual(openFilesUnder(tmpDir), []);
  assert.deepEqual(readdirSync(tmpDir), []);
});

test('an archive abandoned midway stops reading its entries and closes its temporary file, however it ends', async (t) => {
  const endings = {
    'return() (a consumer that stops)': async (gen: AsyncGenerator<Buffer>) => {
      await gen.return(undefined);
    },
    'throw() (what a stream destroyed by a client that left does)': async (gen: AsyncGenerator<Buffer>) => {
      await assert.rejects(gen.throw(new Error('client left')), /client left/);
    },
    'a destroyed stream': async (gen: AsyncGenerator<Buffer>) => {
      const readable = Readable.from(gen);
      readable.destroy(new Error('Premature close'));
      await assert.rejects(finished(readable), /Premature close/);
    },
  };
  for (const [how, end] of Object.entries(endings)) {
    await t.test(how, async () => {
      const tmpDir = spillDir();
      let pulled = 0;
      let closed = false;
      async function* source(): AsyncGenerator<ZipEntry> {
        try {
          for (const e of documents(10_000)) {
            pulled++;
            yield e;
          }
        } finally {
          closed = true;
        }
      }
      const gen = zipStream(source(), { memoryLimit: 1024, tmpDir });
      for (let i = 0; i < 2_000; i++) await gen.next();
      assert.equal(openFilesUnder(tmpDir).length, 1, 'spilled by now');
      await end(gen);
      assert.equal(closed, true, 'the source was closed');
      assert.equal(pulled, 2_000, 'and not read further');
      assert.deepEqual(openFilesUnder(tmpDir), []);
      assert.deepEqual(readdirSync(tmpDir), []);
    });
  }
});

test('the central directory never holds more than its memory limit, and gives back exactly what it was given', async () => {
  const tmpDir = spillDir();
  const limit = 1000;
  const directory = new CentralDirectory({ memoryLimit: limit, tmpDir });
  const given: Buffer[] = [];
  try {
    for (let i = 0; i < 5_000; i++) {
      // Mostly records of 46 to 245 bytes; now and then one longer than the whole limit.
      const record = Buffer.alloc(i % 997 === 0 ? 3 * limit : 46 + (i % 200), i % 251);
      const name = Buffer.from(`n${i}`);
      await directory.append(record, name);
      given.push(record, name);
      assert.ok(directory.peakMemory <= limit, `peak ${directory.peakMemory} after ${i + 1} records`);
    }
    const expected = Buffer.concat(given);
    assert.equal(directory.length, expected.length);
    assert.ok(directory.spilledBytes > expected.length - limit, 'all but the last limit of bytes went to the file');
    const back: Buffer[] = [];
    for await (const chunk of directory.chunks()) back.push(chunk);
    assert.deepEqual(Buffer.concat(back), expected);
  } finally {
    await directory.close();
  }
  assert.deepEqual(openFilesUnder(tmpDir), []);
  assert.deepEqual(readdirSync(tmpDir), []);
});

test('a central directory within its limit makes no file', async () => {
  const tmpDir = spillDir();
  const entries = documents(100);
  const file = await write('in-memory.zip', entries, zipStream(entries, { tmpDir }));
  assert.equal(unzip('-tq', file).status, 0);
  assert.deepEqual(readdirSync(tmpDir), []);
  assert.ok(readFileSync(file).length > 0);
});
