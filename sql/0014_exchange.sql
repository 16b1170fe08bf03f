-- Exchange with buyers (issue 14): the buyer leg of each e-CF the tenant issued (delivery to the
-- buyer's receiver and the ARECF it answered), the commercial approval its buyer sent, and the
-- commercial approvals the tenant sends as buyer of e-CF it received.

-- The buyer leg: pendiente until delivered (or judged not applicable), then recibido,
-- no_recibido (with the buyer's motivo), no_aplica or error (with the reason).
alter table documents add column receptor_estado text;
alter table documents add column receptor_motivo text;
alter table documents add column receptor_detalle text;
alter table documents add column receptor_updated_at timestamptz;
alter table documents add column receptor_received_at timestamptz;
alter table documents add column arecf_xml text;

-- The buyer's commercial approval, as shown on the document (the signed ACECF itself stays in
-- commercial_approvals).
alter table documents add column aprobacion_estado text;
alter table documents add column aprobacion_motivo text;
alter table documents add column aprobacion_fecha text;

-- Decisions the tenant took as buyer on e-CF it received: one per received document. Each of the
-- two legs (to the emisor's receiver, to DGII) records its own outcome.
create table sent_approvals (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  received_document_id uuid not null references received_documents (id),
  estado text not null check (estado in ('aprobado', 'rechazado')),
  motivo text,
  xml text not null,
  emisor_estado text not null default 'pendiente',
  emisor_detalle text,
  dgii_estado text not null default 'pendiente',
  dgii_detalle text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_approvals_document_key unique (received_document_id)
);
create index sent_approvals_tenant_idx on sent_approvals (tenant_id, created_at desc);
