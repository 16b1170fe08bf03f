import type { Queryable } from '../db/connect.ts';
import { JOB_KIND_NAMES } from './kinds.ts';
import { countJobs, dueJobs } from './queries.ts';

/** The queue's depth for /metrics, read from the jobs table so every instance reports the same. */
export async function jobGauges(sql: Queryable): Promise<{ name: string; help: string; samples: { labels: { kind: string }; value: number }[] }[]> {
  const [jobs, due] = await Promise.all([countJobs(sql), dueJobs(sql)]);
  const of = (kind: string) => jobs.find((j) => j.kind === kind);
  const dueOf = (kind: string) => due.find((j) => j.kind === kind);
  return [
    { name: 'ecf_jobs_queued', help: 'Jobs waiting to run, by kind.', samples: JOB_KIND_NAMES.map((kind) => ({ labels: { kind }, value: of(kind)?.queued ?? 0 })) },
    { name: 'ecf_jobs_running', help: 'Jobs claimed by a worker (lease held), by kind.', samples: JOB_KIND_NAMES.map((kind) => ({ labels: { kind }, value: of(kind)?.running ?? 0 })) },
    { name: 'ecf_jobs_due', help: 'Jobs due now and not claimed, by kind: the backlog workers have not reached (queued also counts jobs scheduled for later, such as retries and status polls).', samples: JOB_KIND_NAMES.map((kind) => ({ labels: { kind }, value: dueOf(kind)?.due ?? 0 })) },
    { name: 'ecf_jobs_oldest_due_age_seconds', help: 'How long the oldest due, unclaimed job of each kind has waited past its time (0 when none waits): a growing age means workers are down or saturated.', samples: JOB_KIND_NAMES.map((kind) => ({ labels: { kind }, value: Math.round((dueOf(kind)?.oldestDueSeconds ?? 0) * 1000) / 1000 })) },
  ];
}
