-- Room on the pages of jobs, so that a claim's lease, which changes no indexed column, is a HOT
-- update (the row's new version on its own page, no new index entry). At 40 a claim of a whole
-- page's jobs fits there (a lease adds its expiry and its owner's name); on packed pages about half
-- of the leases wrote an entry in every index of jobs. Applies to pages filled from now on.
alter table jobs set (fillfactor = 40);
