import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PermanentAuthorityError, TransientAuthorityError, type StatusResult, type SubmitResult, type Submission, type TaxAuthority } from '../src/dgii/authority.ts';
import { call, newTenant } from './helpers/http.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

// The pipeline's failure paths, driven by an authority whose answers the test scripts
// per document (by the free text InformacionAdicionalEmisor).
class ScriptedAuthority implements TaxAuthority {
  readonly submits = new Map<string, number>();
  constructor(private readonly script: (s: Submission, attempt: number) => SubmitResult, private readonly statusOf: (trackId: string) => StatusResult) {}
  async submit(s: Submission): Promise<SubmitResult> {
    const n = (this.submits.get(s.documentId) ?? 0) + 1;
    this.submits.set(s.documentId, n);
    return this.script(s, n);
  }
  async status(q: { trackId: string }): Promise<StatusResult> {
    return this.statusOf(q.trackId);
  }
}

const scenario = (s: Submission) => String((s.ecf.Encabezado as Record<string, Record<string, unknown>>).Emisor?.InformacionAdicionalEmisor ?? '');

const authority = new ScriptedAuthority(
  (s, attempt) => {
    const kind = scenario(s);
    if (kind === 'flaky' && attempt < 3) throw new TransientAuthorityError(`connection reset (attempt ${attempt})`);
    if (kind === 'down') throw new TransientAuthorityError('DGII answered 503');
    if (kind === 'refused') throw new PermanentAuthorityError('No valid certificate: upload one with POST /api/certificates');
    if (kind === 'instant') return { kind: 'final', trackId: null, verdict: { estado: 'aceptado', dgiiCode: '0', dgiiMessage: 'Aceptado' } };
    return { kind: 'queued', trackId: kind === 'stuck' ? 'stuck' : `track-${s.documentId}` };
  },
  (trackId) => (trackId === 'stuck' ? { kind: 'pending', dgiiMessage: 'En Proceso' } : { kind: 'final', verdict: { estado: 'aceptado', dgiiCode: '0', dgiiMessage: 'Aceptado' } }),
);

let t: TestService;
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, DGII_SUBMIT_MAX_ATTEMPTS: '4', DGII_POLL_TIMEOUT_MS: '1000' }, authority });
});
after(() => t.close());

async function emitScenario(kind: string) {
  const a = await newTenant(t.url);
  const body = ecfFor(a.rnc, 31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: a.rnc, InformacionAdicionalEmisor: kind } } });
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: body, headers: { 'x-api-key': a.apiKey } });
  assert.equal(res.status, 202, res.text);
  return { id: res.body.data.internalTrackId as string, headers: { 'x-api-key': a.apiKey } };
}

describe('submission pipeline', () => {
  test('transient failures are retried with backoff, then the document proceeds', async () => {
    const { id, headers } = await emitScenario('flaky');
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    assert.equal(authority.submits.get(id), 3);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'en_proceso', 'aceptado']);
  });

  test('after the retry budget the document becomes error with the last failure', async () => {
    const { id, headers } = await emitScenario('down');
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['error']);
    assert.equal(authority.submits.get(id), 4);
    assert.match(doc.dgiiMessage, /Could not be sent after 4 attempts: DGII answered 503/);
  });

  test('a permanent refusal makes the document error at once, with a clear message', async () => {
    const { id, headers } = await emitScenario('refused');
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['error']);
    assert.equal(authority.submits.get(id), 1);
    assert.match(doc.dgiiMessage, /No valid certificate/);
  });

  test('an immediate verdict goes straight from recibido to the final state', async () => {
    const { id, headers } = await emitScenario('instant');
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado']);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'aceptado']);
  });

  test('a document without a verdict before the poll timeout becomes error', async () => {
    const { id, headers } = await emitScenario('stuck');
    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['error']);
    assert.match(doc.dgiiMessage, /No verdict from the tax authority/);
    assert.deepEqual(doc.history.map((h: { estado: string }) => h.estado), ['recibido', 'en_proceso', 'error']);
  });

  test('no job is left behind once documents are final', async () => {
    const [row] = await t.sql`select count(*)::int as n from jobs where kind like 'document.%'`;
    assert.equal(row?.n, 0);
  });
});

test('the maintenance job is scheduled once however many instances start', async () => {
  const db: TestDatabase = await createTestDatabase();
  const instances = [];
  try {
    for (let i = 0; i < 3; i++) instances.push(await startTestService({ database: db }));
    const [row] = await db.db.sql`select count(*)::int as n from jobs where kind = 'maintenance.purge'`;
    assert.equal(row?.n, 1);
  } finally {
    for (const s of instances) await s.close();
    await db.close();
  }
});
