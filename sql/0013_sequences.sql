-- DGII-authorised eNCF ranges, the annulments (ANECF) of numbers that will never be used,
-- and the state that makes sequence.low fire once per crossing.

create table encf_ranges (
  id uuid primary key,
  seq bigint generated always as identity,
  tenant_id integer not null references tenants (id),
  environment text not null check (environment in ('TesteCF', 'CerteCF', 'eCF')),
  tipo smallint not null,
  desde bigint not null,
  hasta bigint not null,
  -- The last day the range may be used (DGII's FechaVencimientoSecuencia); null for 32 and 34.
  fecha_vencimiento date,
  -- Numbering walks the range once: every number below next_value was given to a document,
  -- used explicitly, or annulled (or skipped over an annulment DGII later refused).
  next_value bigint not null,
  -- Numbers at or above next_value that no document uses and no annulment holds. Kept in
  -- step under the row lock by every emit, explicit eNCF and annulment.
  remaining bigint not null,
  expiring_notified_at timestamptz,
  created_at timestamptz not null default now(),
  check (desde >= 1 and desde <= hasta and hasta <= 9999999999),
  check (remaining >= 0 and next_value >= desde and next_value <= hasta + 1)
);
create index encf_ranges_type_idx on encf_ranges (tenant_id, environment, tipo, desde);

-- Whether a type's numbers left are at or below SEQUENCE_LOW_WATERMARK: sequence.low fires on
-- the change to true only.
create table encf_low_alerts (
  tenant_id integer not null references tenants (id),
  environment text not null,
  tipo smallint not null,
  low boolean not null,
  primary key (tenant_id, environment, tipo)
);

create table annulments (
  id uuid primary key,
  seq bigint generated always as identity,
  tenant_id integer not null references tenants (id),
  environment text not null check (environment in ('TesteCF', 'CerteCF', 'eCF')),
  tipo smallint not null,
  desde bigint not null,
  hasta bigint not null,
  rnc_emisor text not null,
  -- recibido → aceptado | rechazado | error. Every estado but rechazado holds its numbers.
  estado text not null,
  dgii_code text,
  dgii_message text,
  fecha_hora_anulacion text,
  signed_xml text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (desde >= 1 and desde <= hasta)
);
create index annulments_span_idx on annulments (tenant_id, environment, tipo, desde);
create index annulments_recent_idx on annulments (tenant_id, environment, seq desc);
