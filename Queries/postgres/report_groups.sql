-- report_groups: events per report dimension in a time window; PostgreSQL's form of the portable
-- Queries/report_groups.sql (same parts, same rows): the day rollups for the whole UTC days
-- inside the window, the 15-minute rollups for the whole buckets of partial days, the raw events only of the
-- partial buckets at the window's edges.
-- Parameters (NULL = no limit): :since (ms, inclusive), :until (ms, exclusive), :ref, :referer_app,
-- :source_host, :link (as in report_groups.sql: the link's own events, from the link rollups); each arrives
-- as text (alstats binds every parameter as text on PostgreSQL) and is cast here.
-- Columns: name, ref, referer_app_name, type, success (1, 0 or NULL), source_url_host, error, events.
WITH p AS (
    SELECT :since::bigint AS since, :until::bigint AS until, :ref::text COLLATE "C" AS ref,
        :referer_app::text COLLATE "C" AS referer_app, :source_host::text COLLATE "C" AS source_host,
        :link::text COLLATE "C" AS link
),
edges AS (
    SELECT p.*,
        coalesce(since, -9223372036854775807) AS s,
        coalesce(until, 9223372036854775807) AS u,
        CASE WHEN since IS NULL THEN -9223372036854775807
             ELSE (since + 899999) - (((since + 899999) % 900000) + 900000) % 900000 END AS b1,
        CASE WHEN until IS NULL THEN 9223372036854775807
             ELSE until - ((until % 900000) + 900000) % 900000 END AS b2,
        CASE WHEN since IS NULL THEN -9223372036854775807
             ELSE (since + 86399999) - (((since + 86399999) % 86400000) + 86400000) % 86400000 END AS d1,
        CASE WHEN until IS NULL THEN 9223372036854775807
             ELSE until - ((until % 86400000) + 86400000) % 86400000 END AS d2
    FROM p
),
b AS (
    SELECT edges.*,
        CASE WHEN greatest(d1, b1) < least(d2, b2) THEN greatest(d1, b1) ELSE b2 END AS dl,
        CASE WHEN greatest(d1, b1) < least(d2, b2) THEN least(d2, b2) ELSE b2 END AS dh
    FROM edges
)
SELECT name, ref, referer_app_name, type, success, source_url_host, error, sum(events)::bigint AS events
FROM (
    SELECT r.name, r.ref, r.referer_app_name, r.type, r.success, r.source_url_host, r.error, r.count AS events
    FROM event_rollup_day AS r, b
    WHERE r.day_ms >= b.dl AND r.day_ms < b.dh
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
      AND (b.source_host IS NULL OR r.source_url_host = b.source_host) AND b.link IS NULL
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, r.type, r.success, r.source_url_host, r.error, r.count
    FROM event_rollup AS r, b
    WHERE r.bucket_ms >= b.b1 AND r.bucket_ms < b.dl
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
      AND (b.source_host IS NULL OR r.source_url_host = b.source_host) AND b.link IS NULL
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, r.type, r.success, r.source_url_host, r.error, r.count
    FROM event_rollup AS r, b
    WHERE r.bucket_ms >= greatest(b.dh, b.b1) AND r.bucket_ms < b.b2
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
      AND (b.source_host IS NULL OR r.source_url_host = b.source_host) AND b.link IS NULL
    UNION ALL
    SELECT e.name, e.ref, e.referer_app_name, e.type, e.success, e.source_url_host, e.error, 1
    FROM events AS e
    WHERE e.ts_ms >= coalesce(:since::bigint, -9223372036854775807)
        AND e.ts_ms < least((CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
            ELSE (:since::bigint + 899999) - (((:since::bigint + 899999) % 900000) + 900000) % 900000 END),
                coalesce(:until::bigint, 9223372036854775807))
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
      AND (:source_host::text IS NULL OR e.source_url_host = :source_host::text) AND :link::text IS NULL
    UNION ALL
    SELECT e.name, e.ref, e.referer_app_name, e.type, e.success, e.source_url_host, e.error, 1
    FROM events AS e
    WHERE e.ts_ms >= greatest((CASE WHEN :until::bigint IS NULL THEN 9223372036854775807
        ELSE :until::bigint - ((:until::bigint % 900000) + 900000) % 900000 END),
            (CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
                ELSE (:since::bigint + 899999) - (((:since::bigint + 899999) % 900000) + 900000) % 900000 END),
                    coalesce(:since::bigint, -9223372036854775807))
                        AND e.ts_ms < coalesce(:until::bigint, 9223372036854775807)
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
      AND (:source_host::text IS NULL OR e.source_url_host = :source_host::text) AND :link::text IS NULL
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, NULL, NULL, NULL, NULL, r.count
    FROM link_rollup_day AS r, b
    WHERE b.link IS NOT NULL AND b.source_host IS NULL AND r.day_ms >= b.dl AND r.day_ms < b.dh AND r.slug = b.link
      AND (r.name <> 'al_nav_in' OR lower(r.origin) IN (SELECT public_url FROM link_public_url))
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, NULL, NULL, NULL, NULL, r.count
    FROM link_rollup AS r, b
    WHERE b.link IS NOT NULL AND b.source_host IS NULL AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.dl AND r.slug = b.link
      AND (r.name <> 'al_nav_in' OR lower(r.origin) IN (SELECT public_url FROM link_public_url))
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
    UNION ALL
    SELECT r.name, r.ref, r.referer_app_name, NULL, NULL, NULL, NULL, r.count
    FROM link_rollup AS r, b
    WHERE b.link IS NOT NULL AND b.source_host IS NULL AND r.bucket_ms >= greatest(b.dh, b.b1) AND r.bucket_ms < b.b2 AND r.slug = b.link
      AND (r.name <> 'al_nav_in' OR lower(r.origin) IN (SELECT public_url FROM link_public_url))
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
    UNION ALL
    SELECT e.name, e.ref, e.referer_app_name, NULL, NULL, NULL, NULL, 1
    FROM link_event AS e
    WHERE :link::text IS NOT NULL AND :source_host::text IS NULL AND e.ts_ms >= coalesce(:since::bigint, -9223372036854775807)
        AND e.ts_ms < least((CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
            ELSE (:since::bigint + 899999) - (((:since::bigint + 899999) % 900000) + 900000) % 900000 END),
                coalesce(:until::bigint, 9223372036854775807))
      AND e.slug = :link::text AND (e.name <> 'al_nav_in' OR lower(e.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
    UNION ALL
    SELECT e.name, e.ref, e.referer_app_name, NULL, NULL, NULL, NULL, 1
    FROM link_event AS e
    WHERE :link::text IS NOT NULL AND :source_host::text IS NULL AND e.ts_ms >= greatest((CASE WHEN :until::bigint IS NULL THEN 9223372036854775807
        ELSE :until::bigint - ((:until::bigint % 900000) + 900000) % 900000 END),
            (CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
                ELSE (:since::bigint + 899999) - (((:since::bigint + 899999) % 900000) + 900000) % 900000 END),
                    coalesce(:since::bigint, -9223372036854775807))
                        AND e.ts_ms < coalesce(:until::bigint, 9223372036854775807)
      AND e.slug = :link::text AND (e.name <> 'al_nav_in' OR lower(e.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
) AS parts
GROUP BY name, ref, referer_app_name, type, success, source_url_host, error
-- Ties in events are ordered by every grouping column (NULLs last), so both backends give the same rows in
-- the same order.
ORDER BY events DESC, name, ref IS NULL, ref, referer_app_name IS NULL, referer_app_name, type IS NULL, type,
    success IS NULL, success, source_url_host IS NULL, source_url_host, error IS NULL, error
