-- A redelivery starts a new series of attempts while an attempt of the old series may still
-- be in flight (its job is locked by the worker making it). Each series gets a number, and an
-- attempt changes the delivery's state only if it belongs to the current series, so a late
-- failure of the old series cannot abandon the new one.
alter table webhook_deliveries add column series integer not null default 0;
