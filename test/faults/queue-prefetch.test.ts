import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log.ts';
import { insertJob } from '../../src/queue/queries.ts';
import { WorkerRuntime } from '../../src/queue/runtime.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { waitFor } from '../helpers/wait.ts';
import { claimLedger, installClaimLedger, overlappingClaims } from './helpers/claims.ts';
import { faultDatabase } from './helpers/database-server.ts';

// The runtime claims a batch ahead of its free slots (a local prefetch queue) and deletes
// finished jobs in batches. A process killed with jobs prefetched must lose none of them:
// their leases expire, another worker takes them over, and none is held by two owners at once.

const LEASE_MS = 2000;
const JOBS = 10;
const log = createLogger('silent');
let db: TestDatabase;
before(async () => {
  db = await faultDatabase();
  await migrate(db.db.sql, log);
  await installClaimLedger(db.db.sql);
});
after(async () => {
  await db?.close();
});

test('a worker killed with a prefetched batch loses nothing, its leases expire and are taken over', async () => {
  const sql = db.db.sql;
  const ids: string[] = [];
  for (let n = 0; n < JOBS; n++) ids.push((await insertJob(sql, { kind: 'noop', payload: { n } })) as string);
  const child = spawn(process.execPath, [fileURLToPath(new URL('./helpers/prefetching-worker.ts', import.meta.url))], {
    env: { ...process.env, DATABASE_URL: db.url, LEASE_MS: String(LEASE_MS), BATCH: String(JOBS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, string>[] = [];
  child.stdout.on('data', (d: Buffer) => {
    for (const l of d.toString().split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, string>);
  });
  const owner = (await waitFor(() => lines.find((l) => l.owner !== undefined), 20_000, 'worker started')).owner as string;
  // One job running, the other nine claimed ahead and waiting for the slot.
  await waitFor(async () => lines.some((l) => l.started !== undefined)
    && (await sql<{ n: number }[]>`select count(*)::int as n from jobs where locked_by = ${owner} and locked_until > now()`)[0]?.n === JOBS, 20_000, 'batch prefetched');
  assert.equal(lines.filter((l) => l.started !== undefined).length, 1, 'only one slot');
  child.kill('SIGKILL');
  await once(child, 'exit');
  const killedAt = Date.now();

  const ran = new Map<string, number>();
  let firstRunAt = 0;
  const survivor = new WorkerRuntime(sql, log, { pollIntervalMs: 50, batchSize: 5, concurrency: 5, leaseMs: 30_000 }, {
    noop: { run: async (job) => { firstRunAt ||= Date.now(); ran.set(job.id, (ran.get(job.id) ?? 0) + 1); await sleep(5); } },
  });
  survivor.start();
  try {
    await waitFor(async () => (await sql<{ n: number }[]>`select count(*)::int as n from jobs`)[0]?.n === 0, 20_000, 'jobs drained');
  } finally {
    await survivor.stop(1000);
  }
  assert.deepEqual([...ran.keys()].sort(), [...ids].sort(), 'every job, the prefetched ones included, ran on the survivor');
  assert.deepEqual([...new Set(ran.values())], [1], 'each once');
  // The leases were at most LEASE_MS old when the process died; none was taken before it ran out.
  assert.ok(firstRunAt - killedAt > 0, 'taken over only after the leases expired');
  const claims = (await claimLedger(sql)).filter((c) => ids.includes(c.jobId));
  assert.deepEqual(claims.filter((c) => c.owner === owner).length, JOBS, 'the killed worker had claimed all of them');
  for (const c of claims.filter((x) => x.owner !== owner)) {
    const dead = claims.find((x) => x.jobId === c.jobId && x.owner === owner);
    assert.ok(dead !== undefined && c.claimedAt.getTime() >= dead.leaseEnd.getTime(), `job ${c.jobId} taken over after its lease ended`);
  }
  assert.deepEqual((await overlappingClaims(sql)).filter((o) => ids.includes(o.jobId)), []);
});
