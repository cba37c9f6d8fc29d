-- delete_pruned_link_visitors: deletes a batch of the daily visitor hashes of the hosted links (link_visitor_day) of
-- the days before the horizon, whose hits are refused from now on; link_visitor_count keeps each day's counts.
-- Parameters: $1 the horizon (ms since the Unix epoch, the start of a UTC day), $2 the most rows to delete.
-- Columns: rows (deleted). Used by: PostgresEventStore.prune, a transaction a batch.
WITH gone AS (
    DELETE FROM link_visitor_day
    WHERE ctid = ANY (ARRAY(SELECT ctid FROM link_visitor_day WHERE day_ms < $1 LIMIT $2))
    RETURNING 1
)
SELECT count(*) AS rows FROM gone
