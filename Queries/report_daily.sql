-- report_daily: events per 15-minute UTC bucket, event name, type and success, in a time window; alstats report turns the buckets into days of its --tz (every real offset is a multiple of 15 minutes).
--
-- Without filters it reads the narrow series rollup; with :ref or :referer_app, the 15-minute rollups
-- (which have those dimensions); the raw events only of the partial buckets at the window's edges.
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch; inclusive, exclusive),
--   :ref, :referer_app (keep only events whose ref / refererAppName is this).
-- Columns: bucket_ms (bucket start, ms since the Unix epoch), bucket_start (RFC 3339 UTC), name,
--   type (app, web, fail or NULL), success (1, 0 or NULL), events.
WITH bounds AS (
    SELECT
        coalesce(:since, -9223372036854775807) AS s,
        coalesce(:until, 9223372036854775807) AS u,
        CASE WHEN :since IS NULL THEN -9223372036854775807
             ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END AS b1,
        CASE WHEN :until IS NULL THEN 9223372036854775807
             ELSE :until - ((:until % 900000) + 900000) % 900000 END AS b2
)
SELECT bucket_ms, strftime('%Y-%m-%dT%H:%M:%SZ', bucket_ms / 1000, 'unixepoch') AS bucket_start, name, type,
       success, sum(events) AS events
FROM (
    SELECT r.bucket_ms, r.name, r.type, r.success, r.count AS events
    FROM event_rollup_series AS r, bounds AS b
    WHERE :ref IS NULL AND :referer_app IS NULL AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
    UNION ALL
    SELECT r.bucket_ms, r.name, r.type, r.success, r.count
    FROM event_rollup AS r, bounds AS b
    WHERE (:ref IS NOT NULL OR :referer_app IS NOT NULL) AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, e.type, e.success, 1
    FROM events AS e, bounds AS b
    WHERE e.ts_ms >= b.s AND e.ts_ms < min(b.b1, b.u)
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, e.type, e.success, 1
    FROM events AS e, bounds AS b
    WHERE e.ts_ms >= max(b.b2, b.b1, b.s) AND e.ts_ms < b.u
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
)
GROUP BY bucket_ms, name, type, success
ORDER BY bucket_ms, name, type, success;
