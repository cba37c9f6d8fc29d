-- count_events_before: how many raw events are older than an instant: what a prune would delete (`alstats prune
-- --dry-run`).
-- Parameters: ?1 the instant (ms since the Unix epoch).
-- Columns: count.
-- Used by: SQLiteEventStore.prune (a dry run).
SELECT count(*) FROM events WHERE ts_ms < ?1
