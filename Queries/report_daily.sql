-- report_daily: events per 15-minute UTC bucket, event name, type and success, in a time window; alstats report turns the buckets into days of its --tz (every real offset is a multiple of 15 minutes).
--
-- Without filters it reads the narrow series rollup; with :ref, :referer_app or :source_host, the 15-minute
-- rollups (which have those dimensions); with :link, the link rollups (the link's page views and arrivals,
-- type and success NULL); the raw events only of the partial buckets at the window's edges.
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch; inclusive, exclusive),
--   :ref, :referer_app, :source_host (keep only events whose ref / refererAppName / sourceURLHost is this),
--   :link (keep only the events of the hosted link with this slug, as in report_groups.sql).
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
    WHERE :ref IS NULL AND :referer_app IS NULL AND :source_host IS NULL AND :link IS NULL
      AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
    UNION ALL
    SELECT r.bucket_ms, r.name, r.type, r.success, r.count
    FROM event_rollup AS r, bounds AS b
    WHERE (:ref IS NOT NULL OR :referer_app IS NOT NULL OR :source_host IS NOT NULL) AND :link IS NULL
      AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
      AND (:source_host IS NULL OR r.source_url_host = :source_host)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, e.type, e.success, 1
    FROM events AS e, bounds AS b
    WHERE e.ts_ms >= b.s AND e.ts_ms < min(b.b1, b.u)
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
      AND (:source_host IS NULL OR e.source_url_host = :source_host) AND :link IS NULL
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, e.type, e.success, 1
    FROM events AS e, bounds AS b
    WHERE e.ts_ms >= max(b.b2, b.b1, b.s) AND e.ts_ms < b.u
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
      AND (:source_host IS NULL OR e.source_url_host = :source_host) AND :link IS NULL
    UNION ALL
    -- with :link, the link's own events, from the link rollups (an arrival only at a recorded public URL)
    SELECT r.bucket_ms, r.name, NULL, NULL, r.count
    FROM link_rollup AS r, bounds AS b
    WHERE :link IS NOT NULL AND :source_host IS NULL AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
      AND r.slug = :link AND (r.name <> 'al_nav_in' OR lower(r.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, NULL, NULL, 1
    FROM link_event AS e
    WHERE :link IS NOT NULL AND :source_host IS NULL AND e.ts_ms >= coalesce(:since, -9223372036854775807)
      AND e.ts_ms < min(CASE WHEN :since IS NULL THEN -9223372036854775807
                     ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END,
                    coalesce(:until, 9223372036854775807))
      AND e.slug = :link AND (e.name <> 'al_nav_in' OR lower(e.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, NULL, NULL, 1
    FROM link_event AS e
    WHERE :link IS NOT NULL AND :source_host IS NULL
      AND e.ts_ms >= max(CASE WHEN :until IS NULL THEN 9223372036854775807 ELSE :until - ((:until % 900000) + 900000) % 900000 END,
                     CASE WHEN :since IS NULL THEN -9223372036854775807
                     ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END,
                     coalesce(:since, -9223372036854775807))
      AND e.ts_ms < coalesce(:until, 9223372036854775807)
      AND e.slug = :link AND (e.name <> 'al_nav_in' OR lower(e.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
)
GROUP BY bucket_ms, name, type, success
ORDER BY bucket_ms, name, type, success;
