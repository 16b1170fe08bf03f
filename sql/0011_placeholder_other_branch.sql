-- Placeholder so this branch migrates without a gap: 0011 belongs to another branch.
-- DROP THIS FILE WHEN MERGING (the real 0011 replaces it).
select 1;
