-- An answer stored inside its request's transaction (an emit's, with its document) must fail
-- that transaction when the claim was taken over by a retry: the document must not commit
-- without its answer. An emit batch sends its COMMIT right behind its statements, without
-- waiting for their results (src/documents/numbering.ts), so the statement that stores the
-- answers checks it itself: it raises ECF01 when fewer rows were its own than it was given,
-- which aborts the transaction, and the COMMIT behind it rolls back.
create function idempotency_answers_held(stored integer, expected integer) returns integer
language plpgsql volatile as $$
begin
  if stored < expected then
    raise exception '% of % Idempotency-Key claims were taken over by a retry', expected - stored, expected
      using errcode = 'ECF01';
  end if;
  return stored;
end
$$;
