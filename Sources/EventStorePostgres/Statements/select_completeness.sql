-- select_completeness: the completeness counts, by kind and reason, of the UTC days that begin in a window.
-- Parameters: $1 since (ms, inclusive; NULL: no start), $2 until (ms, exclusive; NULL: no end).
-- Columns: kind, reason, count. Used by: PostgresEventStore.completeness, its report rows.
SELECT kind, reason, sum(count)::bigint
FROM completeness
WHERE ($1::bigint IS NULL OR day_ms >= $1::bigint) AND ($2::bigint IS NULL OR day_ms < $2::bigint)
GROUP BY kind, reason
