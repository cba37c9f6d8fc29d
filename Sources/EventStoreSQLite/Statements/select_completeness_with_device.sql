-- select_completeness_with_device: the completeness counts of a file that is also an uploader's outbox (a device's
-- database): the store's own and those the uploader counted in its upload_completeness (Migrations/upload/), added
-- by kind and reason, of the UTC days that begin in a window. The store only reads upload_completeness; the uploader
-- owns and writes it, one running count per kind and reason without a day: a count there is dated by the UTC day
-- it last grew (its updated_ms), the nearest day it has (docs/sql.md).
-- Parameters: ?1 since (ms, inclusive; NULL: no start), ?2 until (ms, exclusive; NULL: no end).
-- Columns: kind, reason, count.
SELECT kind, reason, sum(count)
FROM (
    SELECT kind, reason, day_ms, count FROM completeness
    UNION ALL
    SELECT kind, reason, (updated_ms / 86400000 - (updated_ms % 86400000 < 0)) * 86400000 AS day_ms, count
    FROM upload_completeness
)
WHERE (?1 IS NULL OR day_ms >= ?1) AND (?2 IS NULL OR day_ms < ?2)
GROUP BY kind, reason
