-- A check value of ECF_MASTER_KEY (an HMAC under a key derived from it), stored by the first
-- start and compared at every start after it, so that a wrong master key stops the start with
-- a clear message instead of starting and failing every token and sealed secret. One row.
create table master_key_check (
  singleton boolean primary key default true check (singleton),
  check_value bytea not null,
  created_at timestamptz not null default now()
);
