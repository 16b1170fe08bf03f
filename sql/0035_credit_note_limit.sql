-- A credit note (tipo 34) cannot credit more than is left of the e-CF it modifies. The emit
-- checks this before a number is spent (a 422 naming what is left); this guard holds when two
-- notes against one e-CF are emitted at once, in one batch or in two, on one instance or
-- several: each takes a lock on the modified eNCF until its transaction ends, and counts the
-- notes already stored (a row-level BEFORE trigger sees the rows its own statement inserted
-- before it). What counts is what the emit's check counts: the latest document under the eNCF
-- that DGII accepted, and the notes against it but those refused or in error.
create function documents_credit_limit() returns trigger language plpgsql as $$
declare
  modified text := new.ecf -> 'InformacionReferencia' ->> 'NCFModificado';
  original numeric;
  credited numeric;
begin
  if modified is null or modified !~ '^E[0-9]{12}$' then
    return new;
  end if;
  perform pg_advisory_xact_lock(hashtextextended(new.tenant_id::text || '|' || new.environment || '|' || modified, 34));
  select monto_total into original from documents
    where tenant_id = new.tenant_id and environment = new.environment and encf = modified
      and estado in ('aceptado', 'aceptado_condicional')
    order by seq desc limit 1;
  if original is null then
    return new;
  end if;
  select coalesce(sum(monto_total), 0) into credited from documents
    where tenant_id = new.tenant_id and environment = new.environment and tipo = 34
      and ecf -> 'InformacionReferencia' ->> 'NCFModificado' = modified and estado not in ('rechazado', 'error');
  if credited + new.monto_total > original then
    raise exception using errcode = '23514', constraint = 'documents_credit_limit',
      message = format('must not exceed %s: %s totals %s and credit notes of %s were already issued against it',
        to_char(greatest(original - credited, 0), 'FM999999999999999990.00'), modified, original, credited);
  end if;
  return new;
end
$$;

create trigger documents_credit_limit before insert on documents
  for each row when (new.tipo = 34) execute function documents_credit_limit();
