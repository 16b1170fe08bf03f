-- Documents and their XML are compressed with LZ4 rather than PostgreSQL's default pglz where
-- the server has LZ4 (PostgreSQL 14 and later built with it, as Debian's and the PGDG packages
-- are). A stored e-CF (about 2 KB of jsonb) is over the TOAST threshold, so every insert
-- compresses it: pglz takes about 37 µs a row on the benchmark machine, LZ4 about 13, for a
-- size within 10% (1,415 against 1,546 bytes). On an emit that time is spent inside the batch
-- that holds its sequence's lock. Rows stored before keep their pglz values, which stay
-- readable; only new values use LZ4. A server without LZ4 (the embedded PGlite) refuses the
-- method with feature_not_supported and keeps pglz.
do $$
begin
  alter table documents
    alter column ecf set compression lz4,
    alter column signed_xml set compression lz4,
    alter column rfce_xml set compression lz4,
    alter column arecf_xml set compression lz4;
  alter table received_documents
    alter column ecf set compression lz4,
    alter column xml set compression lz4,
    alter column arecf_xml set compression lz4;
  alter table sent_approvals alter column xml set compression lz4;
  alter table annulments alter column signed_xml set compression lz4;
exception when feature_not_supported then
  raise notice 'LZ4 compression is not available on this server; pglz is kept';
end
$$;
