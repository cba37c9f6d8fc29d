-- report_groups: how many events there are per report dimension in a time window; the report's main
-- query (alstats report builds every section but the daily series from these rows).
--
-- Reads the write-time rollups for the whole 15-minute buckets inside the window and the raw events of
-- the partial buckets at its edges, so that its cost grows with the number of groups, not of events.
-- Parameters (unbound = no limit):
--   :since        window start, ms since the Unix epoch, inclusive
--   :until        window end, ms since the Unix epoch, exclusive
--   :ref          keep only events whose ref is this
--   :referer_app  keep only events whose refererAppName is this
-- Columns: name, ref, referer_app_name, type, success (1, 0 or NULL), source_url_host, error, events.
WITH bounds AS (
    SELECT
        coalesce(:since, -9223372036854775807) AS since_ms,
        coalesce(:until, 9223372036854775807) AS until_ms,
        -- the first whole bucket starts at or after :since, the last whole bucket ends at or before :until
        CASE WHEN :since IS NULL THEN -9223372036854775807
             ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END AS first_bucket,
        CASE WHEN :until IS NULL THEN 9223372036854775807
             ELSE :until - ((:until % 900000) + 900000) % 900000 END AS end_bucket
    FROM (SELECT 1)
)
SELECT name, ref, referer_app_name, type, success, source_url_host, error, sum(events) AS events
FROM (
    SELECT r.name, r.ref, r.referer_app_name, r.type, r.success, r.source_url_host, r.error, r.count AS events
    FROM event_rollup AS r, bounds AS b
    WHERE r.bucket_ms >= b.first_bucket AND r.bucket_ms < b.end_bucket
      AND (:ref IS NULL OR r.ref = :ref)
      AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
    UNION ALL
    SELECT e.name, e.ref, e.referer_app_name, e.type, e.success, e.source_url_host, e.error, 1 AS events
    FROM events AS e, bounds AS b
    WHERE e.ts_ms >= b.since_ms AND e.ts_ms < b.until_ms
      AND (e.ts_ms < b.first_bucket OR e.ts_ms >= b.end_bucket)
      AND (:ref IS NULL OR e.ref = :ref)
      AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
)
GROUP BY name, ref, referer_app_name, type, success, source_url_host, error
ORDER BY events DESC, name;
