-- Indexes that let a claim not read the due jobs it leaves (claimJobs). A claim walks due jobs
-- in run_at order and leaves out those of kinds it does not run, and those of the tenants at
-- their limit in its runtime: through jobs_due_idx alone, the main runtime's claims read past
-- every webhook delivery waiting for a slow receiver (40–69 ms each with 100,000 waiting), and
-- the deliveries' claims that leave that tenant out past all of its deliveries (80–150 ms).

-- The due jobs of every kind but deliveries. The deliveries' claims keep jobs_due_idx: an index
-- of deliveries alone looks, to a planner with no statistics of a young table, like a handful
-- of rows, which it reads all and sorts.
create index jobs_due_others_idx on jobs (run_at, id) where kind <> 'webhook.deliver';

-- Deliveries by tenant: a claim that leaves tenants out finds the others one index descent each
-- and reads their due deliveries only.
create index jobs_due_deliveries_by_tenant_idx on jobs ((payload ->> 'tenantId'), run_at, id) where kind = 'webhook.deliver';
