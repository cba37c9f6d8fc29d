-- failure_reasons: PostgreSQL's form of failure_reasons.sql (the same rows): string_agg with its own ORDER BY
-- for SQLite's group_concat of an ordered subquery. Parameters and columns as there; each parameter arrives as text.
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
       (SELECT string_agg(coalesce(f.source_url_host, '(none)'), ', '
                          ORDER BY f.failures DESC, coalesce(f.source_url_host, '(none)'))
        FROM failures AS f
        WHERE f.error IS NOT DISTINCT FROM e.error) AS hosts
FROM per_error AS e
ORDER BY e.failures DESC, e.error IS NULL, e.error;