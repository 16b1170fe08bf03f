-- Emitted e-CF documents, their state history, eNCF sequences and the event outbox.

create table documents (
  id uuid primary key,                       -- internalTrackId
  -- Insertion order: the exact, unique sort key of "newest first" keyset pagination.
  seq bigint generated always as identity,
  tenant_id integer not null references tenants (id),
  environment text not null check (environment in ('TesteCF', 'CerteCF', 'eCF')),
  tipo smallint not null,
  encf text not null,
  estado text not null,
  rnc_emisor text not null,
  rnc_comprador text,
  fecha_emision date not null,
  monto_total numeric(20, 2) not null,
  ecf jsonb not null,                        -- the normalised document as accepted
  track_id text,
  dgii_code text,
  dgii_message text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint documents_encf_key unique (tenant_id, environment, encf)
);
-- Keyset pagination (newest first) and its filters: each index starts with the tenant
-- and environment every query has, then the filter, then the sort key.
create index documents_recent_idx on documents (tenant_id, environment, seq desc);
create index documents_estado_idx on documents (tenant_id, environment, estado, seq desc);
create index documents_tipo_idx on documents (tenant_id, environment, tipo, seq desc);
create index documents_fecha_idx on documents (tenant_id, environment, fecha_emision, seq desc);

create table document_history (
  id bigint generated always as identity primary key,
  document_id uuid not null references documents (id) on delete cascade,
  estado text not null,
  dgii_code text,
  dgii_message text,
  track_id text,
  detail text,
  at timestamptz not null default now()
);
create index document_history_document_idx on document_history (document_id, id);

-- The last number handed out per (tenant, environment, type). Incremented under the
-- row lock of the emitting transaction, so numbers are gap-free and never repeat.
create table encf_sequences (
  tenant_id integer not null references tenants (id),
  environment text not null,
  tipo smallint not null,
  last_value bigint not null,
  primary key (tenant_id, environment, tipo)
);

-- Every event (ecf.status_update, webhook.test...) as the exact JSON sent to receivers.
create table events (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  kind text not null,
  body text not null,
  created_at timestamptz not null default now()
);
create index events_tenant_idx on events (tenant_id, created_at desc);
