import type { Queryable } from '../db/connect.ts';
import { JOB_KIND_NAMES } from './kinds.ts';
import { countJobs } from './queries.ts';

/** The queue's depth for /metrics, read from the jobs table so every instance reports the same. */
export async function jobGauges(sql: Queryable): Promise<{ name: string; help: string; samples: { labels: { kind: string }; value: number }[] }[]> {
  const jobs = await countJobs(sql);
  const of = (kind: string) => jobs.find((j) => j.kind === kind);
  return [
    { name: 'ecf_jobs_queued', help: 'Jobs waiting to run, by kind.', samples: JOB_KIND_NAMES.map((kind) => ({ labels: { kind }, value: of(kind)?.queued ?? 0 })) },
    { name: 'ecf_jobs_running', help: 'Jobs claimed by a worker (lease held), by kind.', samples: JOB_KIND_NAMES.map((kind) => ({ labels: { kind }, value: of(kind)?.running ?? 0 })) },
  ];
}
