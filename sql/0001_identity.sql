-- Tenants, their users, API keys and token sessions.

create table tenants (
  id integer generated always as identity primary key,
  name text not null,
  -- The taxpayer's RNC or cédula; it names the tenant's receiver base URL, hence unique.
  rnc text not null unique,
  created_at timestamptz not null default now()
);

create table users (
  id integer generated always as identity primary key,
  tenant_id integer not null references tenants (id),
  -- Stored lower-cased so uniqueness is case-insensitive.
  email text not null unique,
  name text not null,
  password_hash text not null,
  created_at timestamptz not null default now(),
  password_changed_at timestamptz not null default now()
);
create index users_tenant_idx on users (tenant_id);

create table api_keys (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  public_id text not null unique,
  -- SHA-256 of the whole key string; the key itself is never stored.
  key_hash bytea not null,
  name text not null,
  created_by integer references users (id),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_tenant_idx on api_keys (tenant_id, created_at desc);

-- A session is one sign-in: the family of refresh tokens that rotate from it.
create table sessions (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  user_id integer not null references users (id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  revoked_reason text
);
create index sessions_user_idx on sessions (user_id) where revoked_at is null;
create index sessions_expiry_idx on sessions (expires_at);

create table refresh_tokens (
  id uuid primary key,
  session_id uuid not null references sessions (id) on delete cascade,
  issued_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index refresh_tokens_session_idx on refresh_tokens (session_id);
