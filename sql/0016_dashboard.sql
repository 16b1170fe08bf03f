-- The dashboard's overview counts documents per issue day and estado over a date range
-- (GET /{env}/estadisticas). With estado in the index the count is an index-only scan of
-- the range: no heap page is read for the rows a visible-all page covers, so a month of a
-- tenant with a million documents stays in milliseconds (docs/benchmarks.md).
create index documents_stats_idx on documents (tenant_id, environment, fecha_emision, estado);

-- The documents list's search by buyer RNC (rncComprador filter, and export).
create index documents_comprador_idx on documents (tenant_id, environment, rnc_comprador, seq desc);
