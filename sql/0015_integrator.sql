-- Integrator experience (issue 18).

-- Secret rotation: the secret a rotation replaced keeps signing (beside the new one) until
-- previous_secret_expires_at, so receivers can switch to the new secret without missing events.
alter table webhook_settings
  add column previous_secret_sealed bytea,
  add column previous_secret_expires_at timestamptz;

-- Per-document event order: every event of a document carries the document's next number, so a
-- receiver can drop a stale event (a retried `recibido`) that arrives after a newer one.
alter table documents add column event_seq integer not null default 1;
update documents d set event_seq = greatest(1, (select count(*) from document_history h where h.document_id = d.id));
alter table events add column sequence integer;

-- The ERP's own reference and free metadata of an emitted document; never part of the XML.
alter table documents
  add column referencia text,
  add column metadata jsonb;
create index documents_referencia_idx on documents (tenant_id, environment, referencia, seq desc) where referencia is not null;

-- Scoped API keys. Keys that existed before scopes keep working everywhere: they get every
-- environment; a key inserted without naming its environments gets POST /api/keys's default.
alter table api_keys
  add column environments text[] not null default '{TesteCF,CerteCF,eCF}',
  add column read_only boolean not null default false;
alter table api_keys alter column environments set default '{TesteCF,CerteCF}';
