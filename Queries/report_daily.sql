-- report_daily: events per 15-minute UTC bucket, event name and success, in a time window; alstats
-- report turns the buckets into days of its --tz (every real time-zone offset is a multiple of 15
-- minutes, so each bucket falls within one local day).
--
-- Reads the rollups for whole buckets and the raw events of the partial buckets at the window's edges.
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch; inclusive, exclusive),
--   :ref, :referer_app (keep only events whose ref / refererAppName is this).
-- Columns: bucket_ms (bucket start, ms since the Unix epoch), bucket_start (RFC 3339 UTC), name,
--   success (1, 0 or NULL), events.
WITH bounds AS (
    SELECT
        coalesce(:since, -9223372036854775807) AS since_ms,
        coalesce(:until, 9223372036854775807) AS until_ms,
        CASE WHEN :since IS NULL THEN -9223372036854775807
             ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END AS first_bucket,
        CASE WHEN :until IS NULL THEN 9223372036854775807
             ELSE :until - ((:until % 900000) + 900000) % 900000 END AS end_bucket
    FROM (SELECT 1)
)
SELECT bucket_ms, strftime('%Y-%m-%dT%H:%M:%SZ', bucket_ms / 1000, 'unixepoch') AS bucket_start, name, success,
       sum(events) AS events
FROM (
    SELECT r.bucket_ms, r.name, r.success, r.count AS events
    FROM event_rollup AS r, bounds AS b
    WHERE r.bucket_ms >= b.first_bucket AND r.bucket_ms < b.end_bucket
      AND (:ref IS NULL OR r.ref = :ref)
      AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000 AS bucket_ms, e.name, e.success, 1 AS events
    FROM events AS e, bounds AS b
    WHERE e.ts_ms >= b.since_ms AND e.ts_ms < b.until_ms
      AND (e.ts_ms < b.first_bucket OR e.ts_ms >= b.end_bucket)
      AND (:ref IS NULL OR e.ref = :ref)
      AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
)
GROUP BY bucket_ms, name, success
ORDER BY bucket_ms, name, success;
