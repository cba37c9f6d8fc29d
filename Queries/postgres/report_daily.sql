-- report_daily: events per 15-minute UTC bucket, event name, type and success in a time window;
-- PostgreSQL's form of Queries/report_daily.sql (same parts, same rows).
-- Parameters (NULL = no limit): :since (ms, inclusive), :until (ms, exclusive), :ref, :referer_app,
-- :source_host, :link (as in report_daily.sql); each arrives
-- as text (alstats binds every parameter as text on PostgreSQL) and is cast here.
-- Columns: bucket_ms, bucket_start (RFC 3339 UTC), name, type (app, web, fail or NULL), success (1, 0 or NULL),
-- events.
WITH p AS (
    SELECT :since::bigint AS since, :until::bigint AS until, :ref::text COLLATE "C" AS ref,
        :referer_app::text COLLATE "C" AS referer_app, :source_host::text COLLATE "C" AS source_host,
        :link::text COLLATE "C" AS link
),
b AS (
    SELECT p.*,
        coalesce(since, -9223372036854775807) AS s,
        coalesce(until, 9223372036854775807) AS u,
        CASE WHEN since IS NULL THEN -9223372036854775807
             ELSE (since + 899999) - (((since + 899999) % 900000) + 900000) % 900000 END AS b1,
        CASE WHEN until IS NULL THEN 9223372036854775807
             ELSE until - ((until % 900000) + 900000) % 900000 END AS b2
    FROM p
)
SELECT bucket_ms,
    to_char(to_timestamp(bucket_ms / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS bucket_start, name, type,
    success, sum(events)::bigint AS events
FROM (
    SELECT r.bucket_ms, r.name, r.type, r.success, r.count AS events
    FROM event_rollup_series AS r, b
    WHERE b.ref IS NULL AND b.referer_app IS NULL AND b.source_host IS NULL AND b.link IS NULL
      AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
    UNION ALL
    SELECT r.bucket_ms, r.name, r.type, r.success, r.count
    FROM event_rollup AS r, b
    WHERE (b.ref IS NOT NULL OR b.referer_app IS NOT NULL OR b.source_host IS NOT NULL) AND b.link IS NULL
      AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
      AND (b.source_host IS NULL OR r.source_url_host = b.source_host)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, e.type, e.success, 1
    FROM events AS e
    WHERE e.ts_ms >= coalesce(:since::bigint, -9223372036854775807)
        AND e.ts_ms < least((CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
            ELSE (:since::bigint + 899999) - (((:since::bigint + 899999) % 900000) + 900000) % 900000 END),
                coalesce(:until::bigint, 9223372036854775807))
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
      AND (:source_host::text IS NULL OR e.source_url_host = :source_host::text) AND :link::text IS NULL
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, e.type, e.success, 1
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
    SELECT r.bucket_ms, r.name, NULL, NULL, r.count
    FROM link_rollup AS r, b
    WHERE b.link IS NOT NULL AND b.source_host IS NULL AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2 AND r.slug = b.link
      AND (r.name <> 'al_nav_in' OR lower(r.origin) IN (SELECT public_url FROM link_public_url))
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, NULL, NULL, 1
    FROM link_event AS e
    WHERE :link::text IS NOT NULL AND :source_host::text IS NULL AND e.ts_ms >= coalesce(:since::bigint, -9223372036854775807)
        AND e.ts_ms < least((CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
            ELSE (:since::bigint + 899999) - (((:since::bigint + 899999) % 900000) + 900000) % 900000 END),
                coalesce(:until::bigint, 9223372036854775807))
      AND e.slug = :link::text AND (e.name <> 'al_nav_in' OR lower(e.origin) IN (SELECT public_url FROM link_public_url))
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, NULL, NULL, 1
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
GROUP BY bucket_ms, name, type, success
ORDER BY bucket_ms, name, type NULLS FIRST, success NULLS FIRST
