-- The receiver group (/fe/*): e-CF other taxpayers sent to a tenant, the commercial
-- approvals (ACECF) buyers sent about e-CF the tenant issued, and the single-use seeds
-- and tokens senders authenticate with. Seeds and tokens live here, not in memory, so a
-- sender may be served by any instance between the seed and the upload.

create table received_documents (
  id uuid primary key,
  -- Insertion order: the exact, unique sort key of "newest first" keyset pagination.
  seq bigint generated always as identity,
  tenant_id integer not null references tenants (id),
  environment text not null check (environment in ('TesteCF', 'CerteCF', 'eCF')),
  tipo smallint not null,
  encf text not null,
  rnc_emisor text not null,
  razon_social_emisor text not null,
  rnc_comprador text not null,
  fecha_emision date not null,
  monto_total numeric(20, 2) not null,
  security_code text not null,               -- first six characters of the SignatureValue
  signer_subject text not null,              -- subject of the certificate that signed it
  ecf jsonb not null,                        -- the XML read back into the e-CF JSON view
  xml text not null,                         -- exactly as received (signed)
  arecf_xml text not null,                   -- the signed acknowledgement the sender got
  received_at timestamptz not null default now(),
  -- DGII's "envío duplicado": the same emisor and eNCF twice.
  constraint received_documents_encf_key unique (tenant_id, environment, rnc_emisor, encf)
);
create index received_documents_recent_idx on received_documents (tenant_id, environment, seq desc);
create index received_documents_emisor_idx on received_documents (tenant_id, environment, rnc_emisor, seq desc);
create index received_documents_tipo_idx on received_documents (tenant_id, environment, tipo, seq desc);
create index received_documents_fecha_idx on received_documents (tenant_id, environment, fecha_emision, seq desc);

-- One commercial approval (or rejection) per e-CF the tenant issued.
create table commercial_approvals (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  document_id uuid not null references documents (id),
  rnc_comprador text not null,
  estado smallint not null check (estado in (1, 2)),   -- 1 aprobado, 2 rechazado
  detalle_motivo_rechazo text,
  fecha_hora_aprobacion text not null,                 -- as written: dd-MM-yyyy HH:mm:ss
  xml text not null,
  received_at timestamptz not null default now(),
  constraint commercial_approvals_document_key unique (document_id)
);
create index commercial_approvals_tenant_idx on commercial_approvals (tenant_id, received_at desc);

create table receiver_seeds (
  value text primary key,
  tenant_id integer not null references tenants (id),
  environment text not null,
  expires_at timestamptz not null
);
create index receiver_seeds_expiry_idx on receiver_seeds (expires_at);

create table receiver_tokens (
  token_hash bytea primary key,              -- SHA-256 of the token; the token itself is never stored
  tenant_id integer not null references tenants (id),
  environment text not null,
  holder_id text,                            -- RNC or cédula in the sender's certificate, when it has one
  holder_subject text not null,
  issued_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index receiver_tokens_expiry_idx on receiver_tokens (expires_at);
