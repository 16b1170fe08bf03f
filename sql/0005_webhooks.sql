-- Webhook settings per tenant, one delivery per event sent to a tenant's URL, and every
-- attempt of every delivery.

create table webhook_settings (
  tenant_id integer primary key references tenants (id),
  url text,
  -- AES-256-GCM under a key derived from the master key; readable because it signs.
  secret_sealed bytea,
  updated_at timestamptz not null default now()
);

create table webhook_deliveries (
  id uuid primary key,                        -- X-ECF-Delivery-Id, stable across retries
  seq bigint generated always as identity,
  tenant_id integer not null references tenants (id),
  event_id uuid not null references events (id),
  event text not null,
  status text not null check (status in ('pending', 'delivered', 'abandoned')),
  url text not null,
  attempt_count integer not null default 0,   -- every attempt ever made
  series_attempts integer not null default 0, -- attempts of the current series (a redelivery starts a new one)
  last_attempt_ok boolean,
  last_status_code integer,
  last_error text,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  constraint webhook_deliveries_event_key unique (event_id)
);
create index webhook_deliveries_recent_idx on webhook_deliveries (tenant_id, seq desc);
create index webhook_deliveries_status_idx on webhook_deliveries (tenant_id, status, seq desc);
create index webhook_deliveries_event_idx on webhook_deliveries (tenant_id, event, seq desc);
-- status=failed: abandoned, or pending after a failed attempt.
create index webhook_deliveries_failed_idx on webhook_deliveries (tenant_id, seq desc)
  where status = 'abandoned' or (status = 'pending' and last_attempt_ok = false);

create table webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  number integer not null,
  url text not null,
  at timestamptz not null,
  status_code integer,
  duration_ms integer not null,
  ok boolean not null,
  error text,
  response_body text
);
create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, id);
