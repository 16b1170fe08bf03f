-- PLACEHOLDER on branch exchange only, so that 0014 applies without a gap. DROP this file at merge:
-- the real 0011 comes from a parallel branch.
select 1;
