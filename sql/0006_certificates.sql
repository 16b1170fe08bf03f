-- Signing certificates per tenant, and what signing adds to a document.

create table certificates (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  -- What listings show, readable without the key.
  subject text not null,
  issuer text not null,
  serial_number text not null,
  holder_id text,                             -- RNC or cédula read from the subject
  valid_from timestamptz not null,
  valid_to timestamptz not null,
  fingerprint256 text not null,
  -- AES-256-GCM under the key derived for 'certificates', the tenant and row id bound as
  -- additional data: PKCS#8 DER of the private key, DER of the certificate.
  key_sealed bytea not null,
  certificate_sealed bytea not null,
  active boolean not null default false,
  created_at timestamptz not null default now()
);
create index certificates_tenant_idx on certificates (tenant_id, created_at desc);
-- At most one certificate signs for a tenant.
create unique index certificates_active_idx on certificates (tenant_id) where active;

-- Set together, once, before the first submission; retries resend these exact bytes.
alter table documents
  add column signed_xml text,
  add column rfce_xml text,                   -- type 32 under RD$250,000 only
  add column security_code text,
  add column timbre_url text,
  add column fecha_hora_firma text;           -- dd-MM-yyyy HH:mm:ss (GMT-4), as written in the XML
