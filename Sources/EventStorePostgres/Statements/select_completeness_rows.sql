-- select_completeness_rows: every row of the completeness table, for a backup (alstats backup).
-- Parameters: none.
-- Columns: kind, reason, day_ms, count. Used by: PostgresEventStore.completenessRows.
SELECT kind, reason, day_ms, count FROM completeness ORDER BY kind, reason, day_ms
