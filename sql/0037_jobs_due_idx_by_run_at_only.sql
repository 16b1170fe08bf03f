-- jobs_due_idx again, now usable only by a statement that asks for due times: its predicate
-- holds for every row (run_at is not null), but the planner uses a partial index only where
-- the statement's conditions imply it, and a condition on run_at (a claim's run_at <= now())
-- does. A lookup by id alone cannot use it any more: before, a plan made while jobs was
-- nearly empty could find jobs by id through this index, its second column, which means
-- reading the index whole per job (the deletion of finished delivery jobs in the record of
-- their attempts read 477 buffers a statement, docs/benchmarks.md). Now only the primary key
-- serves such lookups.
drop index jobs_due_idx;
create index jobs_due_idx on jobs (run_at, id) where run_at is not null;
