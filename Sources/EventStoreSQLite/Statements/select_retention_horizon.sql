-- select_retention_horizon: the retention horizon (Migrations/0021): raw events before it are deleted and refused.
-- Parameters: none.
-- Columns: since_ms (NULL when never pruned), rowid_epoch (rises when a prune freed the greatest rowid).
-- Used by: RetentionHorizon (EventWriter), SQLiteEventStore.rawEventsSince, ReportReader.
SELECT since_ms, rowid_epoch FROM retention_horizon WHERE singleton = 1
