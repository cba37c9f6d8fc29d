-- report_groups: how many events there are per report dimension in a time window; the report's main query (alstats report builds every section but the daily series from these rows).
--
-- Its cost grows with the number of groups, not of events: it reads the day rollups for the whole UTC
-- days inside the window, the 15-minute rollups for the whole buckets of partial days, and the raw
-- events only of the partial buckets at the window's edges. Each part is one range on an index.
-- Parameters (unbound = no limit):
--   :since        window start, ms since the Unix epoch, inclusive
--   :until        window end, ms since the Unix epoch, exclusive
--   :ref          keep only events whose ref is this
--   :referer_app  keep only events whose refererAppName is this
--   :source_host  keep only events whose sourceURLHost is this (outbound navigations and returns carry it)
--   :link         keep only the events of the hosted link with this slug: its page views (alstats_link_hit)
--                 and its arrivals (al_nav_in whose targetURL is the link's canonical URL on a public URL of
--                 link_public_url), read from the link rollups (which have no type, success, host or error:
--                 those columns are NULL); every other event is left out. The event rollups know no slug.
-- Columns: name, ref, referer_app_name, type, success (1, 0 or NULL), source_url_host, error, events.
WITH edges AS (
    SELECT
        coalesce(:since, -9223372036854775807) AS s,
        coalesce(:until, 9223372036854775807) AS u,
        -- whole 15-minute buckets: [b1, b2); whole UTC days: [d1, d2)
        CASE WHEN :since IS NULL THEN -9223372036854775807
             ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END AS b1,
        CASE WHEN :until IS NULL THEN 9223372036854775807
             ELSE :until - ((:until % 900000) + 900000) % 900000 END AS b2,
        CASE WHEN :since IS NULL THEN -9223372036854775807
             ELSE (:since + 86399999) - (((:since + 86399999) % 86400000) + 86400000) % 86400000 END AS d1,
        CASE WHEN :until IS NULL THEN 9223372036854775807
             ELSE :until - ((:until % 86400000) + 86400000) % 86400000 END AS d2
),
bounds AS (
    -- the day part [dl, dh) lies inside the bucket part [b1, b2); empty (dl = dh = b2) when no whole day fits
    SELECT s, u, b1, b2,
        CASE WHEN max(d1, b1) < min(d2, b2) THEN max(d1, b1) ELSE b2 END AS dl,
        CASE WHEN max(d1, b1) < min(d2, b2) THEN min(d2, b2) ELSE b2 END AS dh
    FROM edges
)
SELECT name, ref, referer_app_name, type, success, source_url_host, error, sum(events) AS events
FROM (
    SELECT r.name, r.ref, r.referer_app_name, r.type, r.success, r.source_url_host, r.error, r.count AS events
    FROM event_rollup_day AS r, bounds AS b
    WHERE r.day_ms >= b.dl AND r.day_ms < b.dh
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
      AND (:source_host IS NULL OR r.source_url_host = :source_host) AND :link IS NULL
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, r.type, r.success, r.source_url_host, r.error, r.count
    FROM event_rollup AS r, bounds AS b
    WHERE r.bucket_ms >= b.b1 AND r.bucket_ms < b.dl
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
      AND (:source_host IS NULL OR r.source_url_host = :source_host) AND :link IS NULL
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, r.type, r.success, r.source_url_host, r.error, r.count
    FROM event_rollup AS r, bounds AS b
    WHERE r.bucket_ms >= max(b.dh, b.b1) AND r.bucket_ms < b.b2
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
      AND (:source_host IS NULL OR r.source_url_host = :source_host) AND :link IS NULL
    UNION ALL
    SELECT e.name, e.ref, e.referer_app_name, e.type, e.success, e.source_url_host, e.error, 1
    FROM events AS e, bounds AS b
    WHERE e.ts_ms >= b.s AND e.ts_ms < min(b.b1, b.u)
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
      AND (:source_host IS NULL OR e.source_url_host = :source_host) AND :link IS NULL
    UNION ALL
    SELECT e.name, e.ref, e.referer_app_name, e.type, e.success, e.source_url_host, e.error, 1
    FROM events AS e, bounds AS b
    WHERE e.ts_ms >= max(b.b2, b.b1, b.s) AND e.ts_ms < b.u
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
      AND (:source_host IS NULL OR e.source_url_host = :source_host) AND :link IS NULL
    UNION ALL
    -- with :link, the link's own events, from the link rollups (an arrival only at a recorded public URL)
    SELECT r.name, r.ref, r.referer_app_name, NULL, NULL, NULL, NULL, r.count
    FROM link_rollup_day AS r, bounds AS b
    WHERE :link IS NOT NULL AND :source_host IS NULL AND r.day_ms >= b.dl AND r.day_ms < b.dh AND r.slug = :link
      AND (r.name <> 'al_nav_in' OR lower(r.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, NULL, NULL, NULL, NULL, r.count
    FROM link_rollup AS r, bounds AS b
    WHERE :link IS NOT NULL AND :source_host IS NULL AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.dl
      AND r.slug = :link AND (r.name <> 'al_nav_in' OR lower(r.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, NULL, NULL, NULL, NULL, r.count
    FROM link_rollup AS r, bounds AS b
    WHERE :link IS NOT NULL AND :source_host IS NULL AND r.bucket_ms >= max(b.dh, b.b1) AND r.bucket_ms < b.b2
      AND r.slug = :link AND (r.name <> 'al_nav_in' OR lower(r.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
    UNION ALL
    -- the link's raw events of the partial buckets: bounds written out in the parameters, so that SQLite reads
    -- the view link_event by a range of events_by_time
    SELECT e.name, e.ref, e.referer_app_name, NULL, NULL, NULL, NULL, 1
    FROM link_event AS e
    WHERE :link IS NOT NULL AND :source_host IS NULL AND e.ts_ms >= coalesce(:since, -9223372036854775807)
      AND e.ts_ms < min(CASE WHEN :since IS NULL THEN -9223372036854775807
                     ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END,
                    coalesce(:until, 9223372036854775807))
      AND e.slug = :link AND (e.name <> 'al_nav_in' OR lower(e.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
    UNION ALL
    SELECT e.name, e.ref, e.referer_app_name, NULL, NULL, NULL, NULL, 1
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
GROUP BY name, ref, referer_app_name, type, success, source_url_host, error
-- Ties in events are ordered by every grouping column (NULLs last), so both backends give the same rows in
-- the same order.
ORDER BY events DESC, name, ref IS NULL, ref, referer_app_name IS NULL, referer_app_name, type IS NULL, type,
    success IS NULL, success, source_url_host IS NULL, source_url_host, error IS NULL, error;
