import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './helpers/process.ts';

// CI runs the whole suite on the PostgreSQL server and, on the embedded database, only the
// files listed in test/embedded-files.txt. A file that speaks SQL must be on that list, or a
// difference between PGlite and the server in what it exercises would go unseen.

/** Imports that put a test on the database: the test database, the data layer, the queue's SQL. */
const DATABASE_IMPORT = /from '[^']*(?:helpers\/db\.ts|src\/db\/[^']+|src\/queue\/(?:queries|runtime|wakeups)\.ts|src\/idempotency\/[^']+|\/queries\.ts)'/;
/** Statements written in the test itself: a tagged template, a transaction, or raw SQL. */
const DATABASE_CALL = /\bsql`|\bsql\.begin\(|\.unsafe\(/;

export function touchesDatabase(source: string): boolean {
  return DATABASE_IMPORT.test(source) || DATABASE_CALL.test(source);
}

export function listedFiles(text: string): string[] {
  return text.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter((line) => line !== '');
}

test('the embedded run lists every test file that speaks SQL, and only files that exist', async () => {
  const listed = listedFiles(await readFile(join(ROOT, 'test/embedded-files.txt'), 'utf8'));
  assert.equal(new Set(listed).size, listed.length, 'no file is listed twice');
  const files = (await readdir(join(ROOT, 'test'))).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`);
  for (const file of listed) assert.ok(files.includes(file), `${file} is listed but does not exist`);
  const missing: string[] = [];
  for (const file of files) {
    // This file's own examples of what the detector matches are not statements.
    if (file === 'test/embedded-files.test.ts') continue;
    if (touchesDatabase(await readFile(join(ROOT, file), 'utf8')) && !listed.includes(file)) missing.push(file);
  }
  assert.deepEqual(missing, [], 'add these to test/embedded-files.txt');
});

test('the detector tells a file on the database from one that is not', () => {
  assert.equal(touchesDatabase("import { createTestDatabase } from './helpers/db.ts';"), true);
  assert.equal(touchesDatabase("import { claimJobs } from '../src/queue/queries.ts';"), true);
  assert.equal(touchesDatabase("import { x } from '../src/documents/queries.ts';"), true);
  assert.equal(touchesDatabase('await svc.sql`select 1`;'), true);
  assert.equal(touchesDatabase('await sql.begin(async (tx) => {});'), true);
  assert.equal(touchesDatabase("await db.sql.unsafe('select 1');"), true);
  assert.equal(touchesDatabase("import { encodeQr } from '../src/lib/qr/encode.ts';\n// src/webhooks/queries.ts is read by the architecture test"), false);
  assert.equal(touchesDatabase("import { eventDocs } from '../src/events/outbox.ts';"), false);
});
