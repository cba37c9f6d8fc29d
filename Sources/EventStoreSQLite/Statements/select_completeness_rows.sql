-- select_completeness_rows: every row of the store's completeness table, for a backup (alstats backup).
-- Parameters: none.
-- Columns: kind, reason, day_ms, count.
SELECT kind, reason, day_ms, count FROM completeness ORDER BY kind, reason, day_ms
