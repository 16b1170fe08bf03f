import { test } from 'node:test';
import assert from 'node:assert/strict';
import { threadId } from 'node:worker_threads';
import { renderEcfPdf, type PrintInput } from '../src/ecf/print/index.ts';
import { RenderPool } from '../src/ecf/print/render-pool.ts';
import { validateEcf } from '../src/ecf/validation/validate-ecf.ts';
import { AppError } from '../src/errors.ts';
import { sampleEcfWithItems } from './fixtures/ecf.ts';

// Printouts are laid out on worker threads, off the event loop that serves every tenant,
// and the renders waiting are served round-robin by tenant.

function input(lines: number): PrintInput {
  const result = validateEcf(sampleEcfWithItems(31, lines));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { tipo: result.document.tipo, ecf: result.document.ecf, signature: { securityCode: 'Ab3x9Z', fechaHoraFirma: '15-03-2025 10:22:33', timbreUrl: 'https://ecf.dgii.gov.do/testecf/ConsultaTimbre?x=1' }, marks: ['prueba'] };
}

test('a render on the pool gives the bytes the writer gives in this thread', async () => {
  const pool = new RenderPool();
  try {
    const doc = input(12);
    const pooled = await pool.render(doc, 'carta', 't1');
    assert.ok(Buffer.isBuffer(pooled));
    assert.deepEqual(pooled, renderEcfPdf(doc, 'carta'));
    assert.equal(pool.stats().started, 1, 'a thread of its own');
    assert.equal(threadId, 0, 'this test runs on the main thread');
  } finally {
    await pool.close();
  }
});

test('renders waiting are served round-robin by tenant, and a tenant over its share is refused alone', async () => {
  const pool = new RenderPool({ threads: 1, maxPerOwner: 4 });
  try {
    const big = input(300);
    const finished: string[] = [];
    const render = (owner: string, label: string) => pool.render(big, 'carta', owner).then(() => finished.push(label));
    const mine = [1, 2, 3, 4].map((i) => render('a', `a${i}`));
    await assert.rejects(pool.render(big, 'carta', 'a'), (e) => e instanceof AppError && e.status === 429);
    const theirs = render('b', 'b1');
    await Promise.all([...mine, theirs]);
    assert.ok(finished.indexOf('b1') <= 2, `tenant b waited behind tenant a's queue: ${finished.join(', ')}`);
  } finally {
    await pool.close();
  }
});

test('a render that outlasts its budget ends its thread and answers 503; the next render works', async () => {
  const pool = new RenderPool({ threads: 1, timeoutMs: 1 });
  try {
    await assert.rejects(pool.render(input(300), 'carta', 't'), (e) => e instanceof AppError && e.status === 503);
    assert.equal(pool.stats().overruns, 1);
  } finally {
    await pool.close();
  }
  const next = new RenderPool({ threads: 1 });
  try {
    assert.ok((await next.render(input(3), 'ticket80', 't')).length > 0);
  } finally {
    await next.close();
  }
});
