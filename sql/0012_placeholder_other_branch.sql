-- Placeholder so this branch migrates without a gap: 0012 belongs to another branch.
-- DROP THIS FILE WHEN MERGING (the real 0012 replaces it).
select 1;
