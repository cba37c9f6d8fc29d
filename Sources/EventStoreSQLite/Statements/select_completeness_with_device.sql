-- select_completeness_with_device: the completeness counts of a file that is also an uploader's outbox (a device's
-- database): the store's own and those the uploader counted in its upload_completeness (Migrations/upload/), added
-- by kind and reason. The store only reads upload_completeness; the uploader owns and writes it.
-- Parameters: none.
-- Columns: kind, reason, count.
SELECT kind, reason, sum(count)
FROM (
    SELECT kind, reason, count FROM completeness
    UNION ALL
    SELECT kind, reason, count FROM upload_completeness
)
GROUP BY kind, reason
