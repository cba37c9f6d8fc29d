-- failure_reasons: why outbound App Link navigations fail, most common first, with the hosts they fail from.
--
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch, whole 15-minute buckets), :ref,
--   :source_host (only navigations from this sourceURLHost).
-- Columns: error (NULL: failed without a reason), failures, share_of_failures, hosts (the source hosts,
--   comma-separated, most failures first).
WITH failures AS (
    SELECT error, source_url_host, sum(count) AS failures
    FROM event_rollup
    WHERE name = 'al_nav_out' AND (success IS NULL OR success <> 1)
      AND (:since IS NULL OR bucket_ms + 900000 > CAST(:since AS BIGINT))
      AND (:until IS NULL OR bucket_ms < CAST(:until AS BIGINT))
      AND (:ref IS NULL OR ref = :ref) AND (:source_host IS NULL OR source_url_host = :source_host)
    GROUP BY error, source_url_host
),
per_error AS (
    SELECT error, sum(failures) AS failures FROM failures GROUP BY error
)
SELECT e.error, e.failures,
       round(1.0 * e.failures / nullif((SELECT sum(failures) FROM per_error), 0), 4) AS share_of_failures,
       (SELECT group_concat(h.host, ', ')
        FROM (SELECT coalesce(f.source_url_host, '(none)') AS host
              FROM failures AS f
              WHERE f.error IS NOT DISTINCT FROM e.error
              ORDER BY f.failures DESC, host) AS h) AS hosts
FROM per_error AS e
ORDER BY e.failures DESC, e.error IS NULL, e.error;