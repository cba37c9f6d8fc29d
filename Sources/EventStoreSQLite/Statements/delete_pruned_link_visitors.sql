-- delete_pruned_link_visitors: deletes a batch of the daily visitor hashes of the hosted links (link_visitor_day,
-- Migrations/0009) of the days before the horizon, whose hits are refused from now on; link_visitor_count keeps each
-- day's counts.
-- Parameters: ?1 the horizon (ms since the Unix epoch, the start of a UTC day), ?2 the most rows to delete.
-- Used by: SQLitePrune, one transaction a batch, until it deletes fewer than ?2.
DELETE FROM link_visitor_day WHERE rowid IN (SELECT rowid FROM link_visitor_day WHERE day_ms < ?1 LIMIT ?2)
