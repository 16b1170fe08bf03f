import type { Sql } from '../../../src/db/connect.ts';

// A ledger of every claim of every job, written by a trigger the test installs on the
// jobs table (test-only SQL, not a migration), so "no job claimed twice at once" is
// checked on every claim rather than on samples of who holds leases.
//
// A claim is an UPDATE that gives a job an owner (locked_by) it did not hold under a live
// lease. An UPDATE by the same owner while its lease is still live only moves lease_end
// (a lease renewal, not a new claim). A claim ends when its job is deleted (completed)
// or released (locked_by cleared), or when its lease runs out: the queue lets another
// owner take a job only once locked_until < now(), so two owners' claims of one job
// overlap only if the second one started before the first one's end.

export interface ClaimRow {
  jobId: string;
  kind: string;
  owner: string;
  claimedAt: Date;
  leaseEnd: Date;
  endedAt: Date | null;
  renewals: number;
}

export interface Overlap {
  jobId: string;
  kind: string;
  firstOwner: string;
  secondOwner: string;
  firstClaimedAt: Date;
  firstEnded: Date;
  secondClaimedAt: Date;
}

export async function installClaimLedger(sql: Sql): Promise<void> {
  await sql.unsafe(`
    create table faults_job_claims (
      seq bigint generated always as identity primary key,
      job_id bigint not null,
      kind text not null,
      owner text not null,
      claimed_at timestamptz not null,
      lease_end timestamptz not null,
      ended_at timestamptz,
      renewals integer not null default 0
    );
    create index on faults_job_claims (job_id) where ended_at is null;

    create function faults_record_claim() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        update faults_job_claims set ended_at = now() where job_id = old.id and ended_at is null;
        return old;
      end if;
      if new.locked_by is not distinct from old.locked_by and new.locked_until is not distinct from old.locked_until then
        return new;
      end if;
      if new.locked_by is null then
        update faults_job_claims set ended_at = now() where job_id = new.id and ended_at is null;
        return new;
      end if;
      if new.locked_by = old.locked_by and old.locked_until >= now() then
        update faults_job_claims set lease_end = new.locked_until, renewals = renewals + 1
          where job_id = new.id and owner = new.locked_by and ended_at is null;
        return new;
      end if;
      -- A new claim. An earlier claim still open is left open on purpose: its end is its
      -- lease's, so a claim taken while that lease was live shows as an overlap.
      insert into faults_job_claims (job_id, kind, owner, claimed_at, lease_end)
        values (new.id, new.kind, new.locked_by, now(), new.locked_until);
      return new;
    end $$;

    create trigger faults_record_claim after update or delete on jobs
      for each row execute function faults_record_claim();`);
}

export async function claimLedger(sql: Sql): Promise<ClaimRow[]> {
  return sql<ClaimRow[]>`
    select job_id::text, kind, owner, claimed_at, lease_end, ended_at, renewals
    from faults_job_claims order by seq`;
}

/** Pairs of claims of one job by different owners where the second began before the first ended. */
export async function overlappingClaims(sql: Sql): Promise<Overlap[]> {
  return sql<Overlap[]>`
    select a.job_id::text, a.kind, a.owner as first_owner, b.owner as second_owner, a.claimed_at as first_claimed_at,
      least(coalesce(a.ended_at, 'infinity'::timestamptz), a.lease_end) as first_ended, b.claimed_at as second_claimed_at
    from faults_job_claims a
    join faults_job_claims b on b.job_id = a.job_id and b.seq <> a.seq and b.owner <> a.owner
    where b.claimed_at >= a.claimed_at
      and b.claimed_at < least(coalesce(a.ended_at, 'infinity'::timestamptz), a.lease_end)
    order by a.job_id`;
}
