-- Each claim of an Idempotency-Key gets a fresh owner token. A request that outlived its
-- lease may find its key taken over by a retry; storing or releasing only where the token
-- is still its own keeps it from overwriting the retry's claim (and, on emit, rolls its
-- document back). Claims made before this column existed have no owner: they can only be
-- taken over, which gives them one.
alter table idempotency_keys add column owner uuid;
