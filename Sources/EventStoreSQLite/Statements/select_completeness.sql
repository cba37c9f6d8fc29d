-- select_completeness: the completeness counts of the store, by kind and reason.
-- Parameters: none.
-- Columns: kind, reason, count.
SELECT kind, reason, count FROM completeness
