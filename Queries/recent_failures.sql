-- recent_failures: the latest failed outbound navigations, with the URL that was tried and why it failed (reads raw events).
--
-- Parameters: :limit (how many rows; unbound = 20), :ref (only this ref; unbound = all), :source_host (only
--   navigations from this sourceURLHost; unbound = all).
-- Columns: occurred_at (RFC 3339 UTC), ref, source_url, output_url, type, error.
SELECT occurred_at, ref, source_url, output_url, type, error
FROM nav_out
WHERE (success IS NULL OR success <> 1)
  AND (:ref IS NULL OR ref = :ref)
  AND (:source_host IS NULL OR source_url_host = :source_host)
ORDER BY ts_ms DESC, id
LIMIT coalesce(CAST(:limit AS BIGINT), 20);
