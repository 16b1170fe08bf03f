import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, newTenant } from './helpers/http.ts';
import { ecfFor, FAST_PIPELINE } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';

// No workers: the submission job stays where the emit wrote it.
let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, WORKERS_ENABLED: 'false' } });
});
after(() => t.close());

async function rowsOf(tenantId: number) {
  const [row] = await t.sql<{ documents: number; history: number; events: number; jobs: number; sequence: string | null }[]>`
    select (select count(*)::int from documents where tenant_id = ${tenantId}) as documents,
           (select count(*)::int from document_history h join documents d on d.id = h.document_id where d.tenant_id = ${tenantId}) as history,
           (select count(*)::int from events where tenant_id = ${tenantId}) as events,
           (select count(*)::int from jobs j join documents d on d.id::text = j.payload->>'documentId'
             where j.kind = 'document.submit' and d.tenant_id = ${tenantId}) as jobs,
           (select last_value::text from encf_sequences where tenant_id = ${tenantId} and environment = 'TesteCF' and tipo = 31) as sequence`;
  return row;
}

describe('the emit transaction', () => {
  test('writes the document, its history entry, its event and its document.submit job together', async () => {
    const a = await newTenant(t.url);
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers: { 'x-api-key': a.apiKey } });
    assert.equal(res.status, 202, res.text);
    const [job] = await t.sql<{ kind: string; attempts: number; lockedBy: string | null }[]>`
      select kind, attempts, locked_by from jobs where payload->>'documentId' = ${res.body.data.internalTrackId}`;
    assert.deepEqual(job, { kind: 'document.submit', attempts: 0, lockedBy: null });
    assert.deepEqual(await rowsOf(a.tenantId), { documents: 1, history: 1, events: 1, jobs: 1, sequence: '1' });
  });

  test('writes nothing at all when a part after the document insert fails', async () => {
    const a = await newTenant(t.url);
    const headers = { 'x-api-key': a.apiKey };
    // A real database failure after the document row exists: the submission job of this
    // tenant's documents is refused by a trigger.
    await t.sql.unsafe(`
      create function test_refuse_submit_job() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from documents where id::text = new.payload->>'documentId' and tenant_id = ${Number(a.tenantId)}) then
          raise exception 'submission job refused by the test';
        end if;
        return new;
      end $$`);
    await t.sql.unsafe('create trigger test_refuse_submit_job before insert on jobs for each row execute function test_refuse_submit_job()');
    try {
      const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers });
      assert.equal(res.status, 500, res.text);
      assert.equal(res.body.error.code, 'INTERNAL');
      assert.deepEqual(await rowsOf(a.tenantId), { documents: 0, history: 0, events: 0, jobs: 0, sequence: null });
    } finally {
      await t.sql.unsafe('drop trigger test_refuse_submit_job on jobs');
      await t.sql.unsafe('drop function test_refuse_submit_job()');
    }
    const next = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers });
    assert.equal(next.body.data.encf, 'E310000000001', 'the failed emit gave its number back');
    assert.deepEqual(await rowsOf(a.tenantId), { documents: 1, history: 1, events: 1, jobs: 1, sequence: '1' });
  });
});
