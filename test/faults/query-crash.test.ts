import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, newTenant } from '../helpers/http.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';

// Issue 28, item 2, against a real process: a read-only key fires the statistics request that
// used to spin the event loop until the heap ran out (desde = hasta = 9999-12-31), and its
// neighbours in date space, many at once, while another tenant keeps working. Each is a 422,
// the other tenant's requests are answered, and the process stays up with its memory flat.

let database: TestDatabase;
let service: Instance;

before(async () => {
  database = await faultDatabase();
  service = await startInstance(await faultEnv(database.url, { RATE_LIMIT_DEFAULT_PER_MINUTE: '100000' }));
});

after(async () => {
  await stopAllInstances();
  await database?.close();
});

test('extreme statistics ranges from a read-only key are 422 and leave the service answering another tenant', { timeout: 60_000 }, async () => {
  const attacker = await newTenant(service.url);
  const key = await call(service.url, 'POST', '/api/keys', { json: { name: 'solo lectura', readOnly: true }, headers: { authorization: `Bearer ${attacker.accessToken}` } });
  assert.equal(key.status, 201, key.text);
  const readOnly = key.body.data.key as string;
  const other = await newTenant(service.url);
  const rssBefore = await service.rss();

  const ranges = ['desde=9999-12-31&hasta=9999-12-31', 'desde=31-12-9999&hasta=31-12-9999', 'desde=2000-01-01&hasta=9999-12-31', 'hasta=9999-12-31', 'desde=0001-01-01&hasta=0001-12-31'];
  const attacks = Array.from({ length: 40 }, (_, i) => call(service.url, 'GET', `/TesteCF/estadisticas?${ranges[i % ranges.length]}`, { headers: { 'x-api-key': readOnly } }));
  const work = Array.from({ length: 10 }, () => call(service.url, 'GET', '/TesteCF/estadisticas', { headers: { authorization: `Bearer ${other.accessToken}` } }));
  const [attacked, worked] = await Promise.all([Promise.all(attacks), Promise.all(work)]);

  for (const res of attacked) {
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
  }
  for (const res of worked) assert.equal(res.status, 200, res.text);
  assert.equal((await call(service.url, 'GET', '/healthz')).status, 200);
  // Generous: the bug grew the heap by gigabytes; a bounded request leaves it where it was.
  assert.ok((await service.rss()) < rssBefore + 200 * 1024 * 1024, 'the process memory stayed flat');
});
