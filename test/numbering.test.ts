import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../src/db/migrate.ts';
import { OVERLAP_WAITING, SequenceBatcher, type Sequence } from '../src/documents/numbering.ts';
import { createLogger } from '../src/log.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestDatabase;
let tenantId: number;
before(async () => {
  t = await createTestDatabase();
  await migrate(t.db.sql, createLogger('silent'));
  const [tenant] = await t.db.sql<{ id: number }[]>`insert into tenants (name, rnc) values ('Numeración SRL', '130000093') returning id`;
  tenantId = tenant?.id ?? 0;
  await t.db.sql`create table taken (encf text not null, txid bigint not null)`;
});
after(() => t.close());

function emit(batcher: SequenceBatcher, sequence: Sequence, fail: boolean): Promise<string> {
  return batcher.run(sequence, async (tx, encf) => {
    if (fail) throw new Error('this document fails');
    await tx`insert into taken values (${encf}, txid_current())`;
    return encf;
  });
}

test('concurrent emits of a sequence share transactions and get consecutive numbers', async () => {
  const batcher = new SequenceBatcher(t.db.sql, { maxBatch: 16 });
  const seq: Sequence = { tenantId, environment: 'CerteCF', tipo: 31 };
  const got = await Promise.all(Array.from({ length: 60 }, () => emit(batcher, seq, false)));
  assert.deepEqual(got.sort(), Array.from({ length: 60 }, (_, i) => `E31${String(i + 1).padStart(10, '0')}`));
  const [row] = await t.db.sql`select count(distinct txid)::int as transactions from taken where encf = any(${got})`;
  assert.ok((row?.transactions as number) <= 60 / 4, `${row?.transactions} transactions for 60 documents`);
});

test('a failing emit fails alone and gives its number back: no gap', async () => {
  const batcher = new SequenceBatcher(t.db.sql, { maxBatch: 16 });
  const seq: Sequence = { tenantId, environment: 'TesteCF', tipo: 31 };
  const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => emit(batcher, seq, i % 7 === 3)));
  const taken = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<string>).value).sort();
  assert.equal(results.filter((r) => r.status === 'rejected').length, 9);
  assert.deepEqual(taken, Array.from({ length: 51 }, (_, i) => `E31${String(i + 1).padStart(10, '0')}`));
  const [seqRow] = await t.db.sql`select last_value::int as last from encf_sequences where tenant_id = ${tenantId} and environment = 'TesteCF' and tipo = 31`;
  assert.equal(seqRow?.last, 51);
});

/** A work that stores a document with its number, as an emit does (documents_encf_key guards it). */
function emitDocument(batcher: SequenceBatcher, sequence: Sequence): Promise<string> {
  return batcher.run(sequence, async (tx, encf) => {
    await tx`
      insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)
      values (gen_random_uuid(), ${tenantId}, ${sequence.environment}, ${sequence.tipo}, ${encf}, 'recibido', '130000093', '2025-01-01', 1, '{}')`;
    return encf;
  });
}

test('numbers the tenant used explicitly are skipped', async () => {
  const batcher = new SequenceBatcher(t.db.sql);
  await t.db.sql`
    insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)
    values (gen_random_uuid(), ${tenantId}, 'TesteCF', 32, 'E320000000002', 'recibido', '130000093', '2025-01-01', 1, '{}')`;
  const seq: Sequence = { tenantId, environment: 'TesteCF', tipo: 32 };
  const got = await Promise.all(Array.from({ length: 6 }, () => emitDocument(batcher, seq)));
  assert.deepEqual(got.sort(), ['E320000000001', 'E320000000003', 'E320000000004', 'E320000000005', 'E320000000006', 'E320000000007']);
  const [row] = await t.db.sql`select last_value::int as last from encf_sequences where tenant_id = ${tenantId} and environment = 'TesteCF' and tipo = 32`;
  assert.equal(row?.last, 7);
});

test('a batch looks for used numbers only after one of its numbers was refused', async () => {
  const batcher = new SequenceBatcher(t.db.sql);
  const seq: Sequence = { tenantId, environment: 'CerteCF', tipo: 34 };
  const looked: number[] = [];
  const counting = new SequenceBatcher(t.db.sql, {
    ranges: async (_tx, _s, _count, checkUsed) => {
      looked.push(checkUsed ? 1 : 0);
      return null;
    },
  });
  await Promise.all(Array.from({ length: 5 }, () => emitDocument(counting, seq)));
  assert.ok(looked.length > 0 && looked.every((l) => l === 0), `checks: ${looked}`);
  await t.db.sql`
    insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)
    values (gen_random_uuid(), ${tenantId}, 'CerteCF', 34, 'E340000000006', 'recibido', '130000093', '2025-01-01', 1, '{}')`;
  looked.length = 0;
  assert.equal(await emitDocument(counting, seq), 'E340000000007');
  assert.deepEqual(looked, [0, 1]);
  assert.equal(await emitDocument(batcher, seq), 'E340000000008');
});

test('different sequences do not wait on each other', async () => {
  let releaseA: () => void = () => {};
  let startedA: () => void = () => {};
  const started = new Promise<void>((resolve) => (startedA = resolve));
  const release = new Promise<void>((resolve) => (releaseA = resolve));
  // Sequence A's batch is held open after taking its numbers, with its transaction open.
  const batcher = new SequenceBatcher(t.db.sql, {
    ranges: async (_tx, s) => {
      if (s.tipo === 31) {
        startedA();
        await release;
      }
      return null;
    },
  });
  const slowA = emit(batcher, { tenantId, environment: 'eCF', tipo: 31 }, false);
  await started;
  // On PGlite (a single connection) one transaction waits for the other by nature; on a
  // server the other sequence must not wait.
  if (t.url !== 'memory://') assert.equal(await emit(batcher, { tenantId, environment: 'eCF', tipo: 33 }, false), 'E330000000001');
  releaseA();
  assert.equal(await slowA, 'E310000000001');
});

test('a busy sequence opens a second batch beside a running one; a quiet one does not', async () => {
  let opened = 0;
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => (started = resolve));
  // The first batch is held open after taking its numbers.
  const batcher = new SequenceBatcher(t.db.sql, {
    ranges: async () => {
      opened++;
      if (opened === 1) {
        started();
        await held;
      }
      return null;
    },
  });
  const seq: Sequence = { tenantId, environment: 'CerteCF', tipo: 45 };
  const first = emit(batcher, seq, false);
  await running;
  const few = Array.from({ length: 5 }, () => emit(batcher, seq, false));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(opened, 1, 'five waiting emits wait for the running batch');
  const many = Array.from({ length: OVERLAP_WAITING }, () => emit(batcher, seq, false));
  // On PGlite (one connection) the second transaction cannot open while the first is open.
  if (t.url !== 'memory://') await waitFor(async () => (opened === 2 ? true : undefined), 5_000, 'a second batch opened');
  release();
  const got = [await first, ...(await Promise.all([...few, ...many]))];
  assert.deepEqual(got.sort(), Array.from({ length: 6 + OVERLAP_WAITING }, (_, i) => `E45${String(i + 1).padStart(10, '0')}`));
});

/** An emit that chose its eNCF: stores the document (documents_encf_key guards it) and its transaction. */
function emitChosen(batcher: SequenceBatcher, sequence: Sequence, chosen: string): Promise<string> {
  return batcher.runChosen(sequence, chosen, async (tx, encf) => {
    // Both at once: a work sends all its statements before the batch's COMMIT goes.
    await Promise.all([
      tx`
        insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf)
        values (gen_random_uuid(), ${tenantId}, ${sequence.environment}, ${sequence.tipo}, ${encf}, 'recibido', '130000093', '2025-01-01', 1, '{}')`,
      tx`insert into taken values (${encf}, txid_current())`,
    ]);
    return encf;
  });
}

const E46 = (n: number) => `E46${String(n).padStart(10, '0')}`;

test('emits that chose their eNCF share transactions, and a reused eNCF fails alone', async () => {
  const spent: string[][] = [];
  const batcher = new SequenceBatcher(t.db.sql, {
    chosen: async (_tx, _s, encfs) => {
      spent.push([...encfs]);
      return encfs.map(() => ({ fechaVencimiento: null }));
    },
  });
  const seq: Sequence = { tenantId, environment: 'TesteCF', tipo: 46 };
  const got = await Promise.all(Array.from({ length: 40 }, (_, i) => emitChosen(batcher, seq, E46(i + 1))));
  assert.deepEqual(got, Array.from({ length: 40 }, (_, i) => E46(i + 1)));
  const [row] = await t.db.sql`select count(distinct txid)::int as transactions from taken where encf = any(${got})`;
  assert.ok((row?.transactions as number) <= 40 / 4, `${row?.transactions} transactions for 40 documents`);
  assert.ok(spent.some((s) => s.length > 1), 'a batch spends its eNCFs together');

  const results = await Promise.allSettled([E46(41), E46(7), E46(42), E46(43)].map((e) => emitChosen(batcher, seq, e)));
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  assert.match(String((results[1] as PromiseRejectedResult).reason), /documents_encf_key/);
});

test('a batch sends its COMMIT behind its works\' statements: one sent later is refused, and fails its work alone', async () => {
  const batcher = new SequenceBatcher(t.db.sql);
  const seq: Sequence = { tenantId, environment: 'CerteCF', tipo: 47 };
  const late = batcher.run(seq, async (tx, encf) => {
    await tx`insert into taken values (${encf}, txid_current())`;
    // Too late: the batch's COMMIT went right behind the first statement.
    await tx`insert into taken values (${`${encf}-late`}, txid_current())`;
    return encf;
  });
  const others = Array.from({ length: 3 }, () => emit(batcher, seq, false));
  await assert.rejects(late, /after its COMMIT was sent/);
  const got = await Promise.all(others);
  const rows = await t.db.sql<{ encf: string }[]>`select encf from taken where encf like 'E47%' order by encf`;
  // The first statement of the failed work committed with its batch; the late one never ran.
  assert.deepEqual(rows.map((r) => r.encf), ['E470000000001', ...got].sort());
});

test('a batch whose statement fails, though its COMMIT was already sent, is rolled back, and each document retried alone', async () => {
  const batcher = new SequenceBatcher(t.db.sql);
  const seq: Sequence = { tenantId, environment: 'CerteCF', tipo: 41 };
  // The second emit's statement fails, slowly: on a server the COMMIT has gone behind it by then.
  const results = await Promise.allSettled([1, 0, 1, 1].map((divisor) => batcher.run(seq, async (tx, encf) => {
    await tx`insert into taken values (${encf}, txid_current() + (select 1 / ${divisor}::integer from pg_sleep(0.05)))`;
    return encf;
  })));
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  assert.match(String((results[1] as PromiseRejectedResult).reason), /division by zero/);
  // The numbers of the failed batch were given back: no gap.
  const rows = await t.db.sql<{ encf: string }[]>`select encf from taken where encf like 'E41%' order by encf`;
  assert.deepEqual(rows.map((r) => r.encf), ['E410000000001', 'E410000000002', 'E410000000003']);
  const [seqRow] = await t.db.sql`select last_value::int as last from encf_sequences where tenant_id = ${tenantId} and environment = 'CerteCF' and tipo = 41`;
  assert.equal(seqRow?.last, 3);
});
