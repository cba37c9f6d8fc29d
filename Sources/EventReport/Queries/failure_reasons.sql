-- failure_reasons: why outbound App Link navigations fail, most common first, with the hosts they fail from.
--
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch, whole 15-minute buckets), :ref.
-- Columns: error (NULL: failed without a reason), failures, share_of_failures, hosts (the source hosts, comma-separated).
WITH failures AS (
    SELECT error, source_url_host, sum(count) AS failures
    FROM event_rollup
    WHERE name = 'al_nav_out' AND (success IS NULL OR success <> 1)
      AND (:since IS NULL OR bucket_ms + 900000 > :since)
      AND (:until IS NULL OR bucket_ms < :until)
      AND (:ref IS NULL OR ref = :ref)
    GROUP BY error, source_url_host
)
SELECT error, sum(failures) AS failures,
       round(1.0 * sum(failures) / nullif((SELECT sum(failures) FROM failures), 0), 4) AS share_of_failures,
       group_concat(coalesce(source_url_host, '(none)'), ', ') AS hosts
FROM failures
GROUP BY error
ORDER BY failures DESC, error IS NULL, error;
