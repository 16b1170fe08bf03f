-- The due jobs of every kind but webhook deliveries, in an index of their own (claimJobs): a
-- claim walks due jobs in run_at order and leaves out those of kinds it does not run, so
-- through jobs_due_idx alone the main runtime's claims read past every delivery waiting for a
-- slow receiver (40–69 ms each with 100,000 waiting). The deliveries' claims keep
-- jobs_due_idx: the planner, knowing nothing of a young table, takes an index of deliveries
-- alone for a handful of rows, and sorts them all.
create index jobs_due_others_idx on jobs (run_at, id) where kind <> 'webhook.deliver';
