-- The dashboard's invoice form remembers a tenant's customers and items, so the second invoice
-- to the same buyer, or with the same products, takes seconds. Per tenant (every environment
-- shares them); one customer per RNC or cédula, one item per description.

create table saved_customers (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  rnc text not null,
  name text not null,
  email text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, rnc)
);

create table saved_items (
  id uuid primary key,
  tenant_id integer not null references tenants (id),
  description text not null,
  -- Decimal text as typed (PrecioUnitarioItem before ITBIS), never a float.
  price numeric(20, 4) not null,
  -- DGII's IndicadorFacturacion (1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 %, 4 exento) and
  -- IndicadorBienoServicio (1 bien, 2 servicio).
  indicator smallint not null check (indicator between 1 and 4),
  kind smallint not null check (kind in (1, 2)),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, description)
);
