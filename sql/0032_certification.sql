-- DGII certification (issue 30): the log of DGII portal documents the tenant signed, and the
-- portal steps the taxpayer marks by hand.

-- Every portal document signed with the tenant's key: who, when, which document (kind, its
-- identifier and the digest of what was handed in) and the signed XML given back.
create table portal_signatures (
  id uuid primary key,
  seq bigint generated always as identity,
  tenant_id integer not null references tenants (id),
  environment text not null,
  user_id integer not null references users (id),
  documento text not null,
  referencia text,
  input_sha256 text not null,
  signed_xml text not null,
  created_at timestamptz not null default now()
);
create index portal_signatures_recent_idx on portal_signatures (tenant_id, seq desc);

-- Portal steps only DGII's portal knows about (the taxpayer tells the service where it stands).
create table certification_steps (
  tenant_id integer not null references tenants (id),
  environment text not null,
  paso text not null,
  estado text not null check (estado in ('pendiente', 'en_curso', 'completado', 'error')),
  nota text,
  user_id integer references users (id),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, environment, paso)
);

-- The test set DGII hands the taxpayer (its workbook, or the same cases as CSV), one per tenant
-- and environment, and each of its cases: an e-CF to emit or a commercial approval to send,
-- in the order they go (fase, then the set's own order) and where each stands.
create table certification_sets (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  environment text not null,
  origen text not null,
  created_at timestamptz not null default now(),
  constraint certification_sets_key unique (tenant_id, environment)
);

create table certification_cases (
  set_id uuid not null references certification_sets (id) on delete cascade,
  numero integer not null,
  caso text not null,
  clase text not null check (clase in ('ecf', 'aprobacion')),
  tipo integer,
  encf text not null,
  fase integer not null,
  body jsonb not null,
  estado text not null default 'pendiente' check (estado in ('pendiente', 'enviado', 'aceptado', 'rechazado')),
  detalle text,
  document_id uuid,
  approval_id uuid,
  updated_at timestamptz not null default now(),
  primary key (set_id, numero)
);
