-- Commercial approvals the tenant sends as buyer about any e-CF (issue 30), not only about those
-- its receiver got: DGII's certification step 3, and invoices that arrive by other channels.

-- One decision per e-CF (emisor RNC + eNCF) per tenant and environment. Each leg (to the
-- emisor's receiver, to DGII) records its own outcome: pendiente, enviado, no_aplica, error.
create table commercial_approval_requests (
  id uuid primary key,
  seq bigint generated always as identity,
  tenant_id integer not null references tenants (id),
  environment text not null,
  rnc_emisor text not null,
  encf text not null,
  fecha_emision date not null,
  monto_total numeric(20, 2) not null,
  rnc_comprador text not null,
  estado text not null check (estado in ('aprobado', 'rechazado')),
  motivo text,
  xml text not null,
  emisor_estado text not null default 'pendiente',
  emisor_detalle text,
  dgii_estado text not null default 'pendiente',
  dgii_detalle text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint commercial_approval_requests_key unique (tenant_id, environment, rnc_emisor, encf)
);
create index commercial_approval_requests_recent_idx on commercial_approval_requests (tenant_id, environment, seq desc);
