-- report_daily: events per 15-minute UTC bucket, event name, type and success in a time window;
-- PostgreSQL's form of Sources/EventReport/Queries/report_daily.sql (same parts, same rows).
-- Parameters (NULL = no limit): $1 since (ms, inclusive), $2 until (ms, exclusive), $3 ref, $4 referer app.
-- Columns: bucket_ms, name, type (app, web, fail or NULL), success (1, 0 or NULL), events.
WITH p AS (
    SELECT $1::bigint AS since, $2::bigint AS until, $3::text COLLATE "C" AS ref, $4::text COLLATE "C" AS referer_app
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
SELECT bucket_ms, name, type, success, sum(events)::bigint AS events
FROM (
    SELECT r.bucket_ms, r.name, r.type, r.success, r.count AS events
    FROM event_rollup_series AS r, b
    WHERE b.ref IS NULL AND b.referer_app IS NULL AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
    UNION ALL
    SELECT r.bucket_ms, r.name, r.type, r.success, r.count
    FROM event_rollup AS r, b
    WHERE (b.ref IS NOT NULL OR b.referer_app IS NOT NULL) AND r.bucket_ms >= b.b1 AND r.bucket_ms < b.b2
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, e.type, e.success, 1
    FROM events AS e
    WHERE e.ts_ms >= coalesce($1::bigint, -9223372036854775807)
        AND e.ts_ms < least((CASE WHEN $1::bigint IS NULL THEN -9223372036854775807
            ELSE ($1::bigint + 899999) - ((($1::bigint + 899999) % 900000) + 900000) % 900000 END),
                coalesce($2::bigint, 9223372036854775807))
      AND ($3::text IS NULL OR e.ref = $3::text) AND ($4::text IS NULL OR e.referer_app_name = $4::text)
    UNION ALL
    SELECT e.ts_ms - ((e.ts_ms % 900000) + 900000) % 900000, e.name, e.type, e.success, 1
    FROM events AS e
    WHERE e.ts_ms >= greatest((CASE WHEN $2::bigint IS NULL THEN 9223372036854775807
        ELSE $2::bigint - (($2::bigint % 900000) + 900000) % 900000 END),
            (CASE WHEN $1::bigint IS NULL THEN -9223372036854775807
                ELSE ($1::bigint + 899999) - ((($1::bigint + 899999) % 900000) + 900000) % 900000 END),
                    coalesce($1::bigint, -9223372036854775807))
                        AND e.ts_ms < coalesce($2::bigint, 9223372036854775807)
      AND ($3::text IS NULL OR e.ref = $3::text) AND ($4::text IS NULL OR e.referer_app_name = $4::text)
) AS parts
GROUP BY bucket_ms, name, type, success
ORDER BY bucket_ms, name, type NULLS FIRST, success NULLS FIRST
