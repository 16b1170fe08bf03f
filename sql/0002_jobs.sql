-- The jobs queue shared by all background work (submission, polling, webhook deliveries,
-- purges). Claimed with SELECT ... FOR UPDATE SKIP LOCKED; a claim is a lease
-- (locked_until) so a crashed worker's job becomes claimable again. Finished jobs are
-- deleted, so the table only holds pending and running work.
create table jobs (
  id bigint generated always as identity primary key,
  kind text not null,
  payload jsonb not null default '{}'::jsonb,
  run_at timestamptz not null default now(),
  attempts integer not null default 0,
  locked_until timestamptz,
  locked_by text,
  last_error text,
  -- At most one pending job per key (periodic maintenance, one poll per document...).
  unique_key text unique,
  created_at timestamptz not null default now()
);
create index jobs_due_idx on jobs (run_at, id);
create index jobs_kind_idx on jobs (kind);
