-- A buyer checks what it receives (issue 33): what DGII's Consulta Estado answers about each
-- received e-CF, asked by a background job (receiver.verify), and the tenant's choice to reject
-- automatically, with an ACECF, an e-CF DGII does not know.

-- pendiente until asked, then aceptado, aceptado_condicional, rechazado, en_proceso (asked again
-- while DGII processes it), no_encontrado, no_disponible (no DGII client: a custom tax authority)
-- or error. Null for documents received before this check existed.
alter table received_documents add column dgii_estado text
  check (dgii_estado in ('pendiente', 'aceptado', 'aceptado_condicional', 'rechazado', 'en_proceso', 'no_encontrado', 'no_disponible', 'error'));
alter table received_documents alter column dgii_estado set default 'pendiente';
-- DGII's codigo (0 No encontrado, 1 Aceptado, 2 Rechazado, 3 En Proceso, 4 Aceptado Condicional).
alter table received_documents add column dgii_codigo smallint;
alter table received_documents add column dgii_consultado_en timestamptz;

create table receiver_settings (
  tenant_id integer primary key references tenants (id),
  -- Reject (ACECF Estado 2) a received e-CF that DGII's Consulta Estado does not know.
  reject_unknown boolean not null default false,
  updated_at timestamptz not null default now()
);
