-- Each tenant's logo, printed on its e-CF (src/documents/logo.ts): the file as uploaded, checked.
create table tenant_logos (
  tenant_id integer primary key references tenants (id),
  media_type text not null check (media_type in ('image/png', 'image/jpeg')),
  data bytea not null,
  width integer not null,
  height integer not null,
  updated_at timestamptz not null default now()
);
