-- Idempotency-Key records: the first request claims the key (insert-or-conflict), holds
-- a lease while it runs, then stores its response for replays until expires_at.
create table idempotency_keys (
  tenant_id integer not null references tenants (id),
  -- '-' for routes without an {env} segment.
  environment text not null,
  key text not null,
  fingerprint text not null,
  state text not null check (state in ('running', 'done')),
  locked_until timestamptz,
  response_status integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (tenant_id, environment, key)
);
create index idempotency_keys_expiry_idx on idempotency_keys (expires_at);
