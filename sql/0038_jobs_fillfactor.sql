-- Half of each page of jobs kept free, so a job's updates that change no indexed column (a
-- claim setting its lease, a lease renewed or given back) write the row's new version beside
-- the old one (a HOT update) and add nothing to the table's six indexes. Packed full, about
-- half of the claims found no room on their page, and each then added an entry to every index
-- of jobs (and left one more dead entry for the next claims to step over). Jobs are deleted
-- once done, so the table stays small whatever the room: a few megabytes for thousands of
-- queued jobs. Measured in docs/benchmarks.md (twelfth session).
alter table jobs set (fillfactor = 50);
