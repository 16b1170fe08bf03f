-- DGII's answer on a document says whether its eNCF was used (secuenciaUtilizada). A rejected
-- document whose number DGII did not use gives the number back: it may be emitted again (a new
-- document with that eNCF) or annulled with an ANECF. null: DGII has not said (yet).
alter table documents add column secuencia_utilizada boolean;

-- One live document per eNCF: a document whose number DGII says was not used no longer holds
-- it. The unique index keeps the constraint's name, which the service recognises in the
-- violation (src/documents/numbering.ts, ENCF_CONSTRAINT); lookups by eNCF use the plain index.
alter table documents drop constraint documents_encf_key;
create unique index documents_encf_key on documents (tenant_id, environment, encf) where secuencia_utilizada is not false;
create index documents_encf_idx on documents (tenant_id, environment, encf);
