-- select_completeness: the completeness counts of the store, by kind and reason, of the UTC days that begin in a
-- window.
-- Parameters: ?1 since (ms, inclusive; NULL: no start), ?2 until (ms, exclusive; NULL: no end).
-- Columns: kind, reason, count.
SELECT kind, reason, sum(count)
FROM completeness
WHERE (?1 IS NULL OR day_ms >= ?1) AND (?2 IS NULL OR day_ms < ?2)
GROUP BY kind, reason
