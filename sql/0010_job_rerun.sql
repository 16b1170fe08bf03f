-- A job asked to run again while a worker holds it (a webhook redelivered while its attempt
-- is in flight) cannot be moved then: the running worker decides what happens next, and
-- would delete a finished job. `rerun` carries the request to that worker: completing
-- or rescheduling a job marked so makes it due at once instead, with its attempts reset.
alter table jobs add column rerun boolean not null default false;
