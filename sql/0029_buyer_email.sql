-- The e-CF e-mailed to its buyer (src/documents/buyer-email.ts): each tenant's choice and
-- reply-to address, and the outcome of each document's e-mail.

create table tenant_email_settings (
  tenant_id integer primary key references tenants (id),
  -- Off until the tenant turns it on: its buyers get mail only when it chose so.
  enabled boolean not null default false,
  reply_to text,
  updated_at timestamptz not null default now()
);

create table document_emails (
  document_id uuid primary key references documents (id) on delete cascade,
  tenant_id integer not null references tenants (id),
  estado text not null check (estado in ('pendiente', 'enviado', 'error')),
  -- CorreoComprador when the e-mail was queued.
  destinatario text not null,
  detalle text,
  enviado_en timestamptz,
  updated_at timestamptz not null default now()
);
