-- report_links: the hosted links funnel per slug in a time window; PostgreSQL's form of
-- report_links.sql (same parts, same rows): the link rollups for whole UTC days and
-- 15-minute buckets, the raw events (view link_event) of the partial buckets at the window's edges; visitors
-- from link_visitor_count for whole UTC days and from the raw hits of the partial UTC days at the edges.
-- Parameters (NULL = no limit): :since (ms, inclusive), :until (ms, exclusive), :ref, :referer_app,
-- :source_host (hits and arrivals have none: no rows), :link (this slug only); each arrives
-- as text (alstats binds every parameter as text on PostgreSQL) and is cast here.
-- Columns: slug, hits, visitors, crawler_fetches, not_found, arrivals, arrival_rate (arrivals / hits to 4 decimals,
-- as a double as SQLite's). By hits descending, then slug.
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
),
counts AS (
    SELECT r.name, r.slug, r.origin, r.status, r.crawler, r.count
    FROM link_rollup_day AS r, b
    WHERE r.day_ms >= b.dl AND r.day_ms < b.dh
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
      AND b.source_host IS NULL AND (b.link IS NULL OR r.slug = b.link)
    UNION ALL
    SELECT r.name, r.slug, r.origin, r.status, r.crawler, r.count
    FROM link_rollup AS r, b
    WHERE r.bucket_ms >= b.b1 AND r.bucket_ms < b.dl
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
      AND b.source_host IS NULL AND (b.link IS NULL OR r.slug = b.link)
    UNION ALL
    SELECT r.name, r.slug, r.origin, r.status, r.crawler, r.count
    FROM link_rollup AS r, b
    WHERE r.bucket_ms >= greatest(b.dh, b.b1) AND r.bucket_ms < b.b2
      AND (b.ref IS NULL OR r.ref = b.ref) AND (b.referer_app IS NULL OR r.referer_app_name = b.referer_app)
      AND b.source_host IS NULL AND (b.link IS NULL OR r.slug = b.link)
    UNION ALL
    SELECT e.name, e.slug, e.origin, e.status, e.crawler, 1
    FROM link_event AS e
    WHERE e.ts_ms >= coalesce(:since::bigint, -9223372036854775807)
        AND e.ts_ms < least((CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
            ELSE (:since::bigint + 899999) - (((:since::bigint + 899999) % 900000) + 900000) % 900000 END),
                coalesce(:until::bigint, 9223372036854775807))
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
      AND :source_host::text IS NULL AND (:link::text IS NULL OR e.slug = :link::text)
    UNION ALL
    SELECT e.name, e.slug, e.origin, e.status, e.crawler, 1
    FROM link_event AS e
    WHERE e.ts_ms >= greatest((CASE WHEN :until::bigint IS NULL THEN 9223372036854775807
        ELSE :until::bigint - ((:until::bigint % 900000) + 900000) % 900000 END),
            (CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
                ELSE (:since::bigint + 899999) - (((:since::bigint + 899999) % 900000) + 900000) % 900000 END),
                    coalesce(:since::bigint, -9223372036854775807))
                        AND e.ts_ms < coalesce(:until::bigint, 9223372036854775807)
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
      AND :source_host::text IS NULL AND (:link::text IS NULL OR e.slug = :link::text)
),
funnel AS (
    SELECT slug,
        sum(CASE WHEN name = 'alstats_link_hit' AND status = 200 AND crawler = 0 THEN count ELSE 0 END) AS hits,
        sum(CASE WHEN name = 'alstats_link_hit' AND crawler = 1 THEN count ELSE 0 END) AS crawler_fetches,
        sum(CASE WHEN name = 'alstats_link_hit' AND crawler = 0 AND status IS DISTINCT FROM 200 THEN count ELSE 0 END)
            AS not_found,
        sum(CASE WHEN name = 'al_nav_in' AND lower(origin) IN (SELECT public_url FROM link_public_url)
            THEN count ELSE 0 END) AS arrivals
    FROM counts
    GROUP BY slug
),
edge_visitors AS (
    SELECT DISTINCT e.ts_ms - ((e.ts_ms % 86400000) + 86400000) % 86400000 AS day_ms, e.slug, e.visitor
    FROM link_event AS e
    WHERE ((e.ts_ms >= coalesce(:since::bigint, -9223372036854775807)
        AND e.ts_ms < least((CASE WHEN :since::bigint IS NULL THEN -9223372036854775807
            ELSE (:since::bigint + 86399999) - (((:since::bigint + 86399999) % 86400000) + 86400000) % 86400000 END), coalesce(:until::bigint, 9223372036854775807))) OR (e.ts_ms >= greatest((CASE WHEN :until::bigint IS NULL THEN 9223372036854775807 ELSE :until::bigint - ((:until::bigint % 86400000) + 86400000) % 86400000 END), (CASE WHEN :since::bigint IS NULL THEN -9223372036854775807 ELSE (:since::bigint + 86399999) - (((:since::bigint + 86399999) % 86400000) + 86400000) % 86400000 END), coalesce(:since::bigint, -9223372036854775807)) AND e.ts_ms < coalesce(:until::bigint, 9223372036854775807)))
      AND e.name = 'alstats_link_hit' AND e.status = 200 AND e.crawler = 0 AND e.visitor IS NOT NULL
      AND (:ref::text IS NULL OR e.ref = :ref::text) AND (:referer_app::text IS NULL OR e.referer_app_name = :referer_app::text)
      AND :source_host::text IS NULL AND (:link::text IS NULL OR e.slug = :link::text)
),
visitors AS (
    SELECT slug, sum(visitors) AS visitors
    FROM (
        SELECT c.slug, c.visitors
        FROM link_visitor_count AS c, b
        WHERE c.day_ms >= b.d1 AND c.day_ms < b.d2
          AND c.scope = CASE WHEN b.ref IS NULL
              AND b.referer_app IS NULL THEN 'all' WHEN b.referer_app IS NULL THEN 'ref'
                             WHEN b.ref IS NULL THEN 'referer_app' ELSE 'both' END
          AND (b.ref IS NULL OR c.ref = b.ref) AND (b.referer_app IS NULL OR c.referer_app_name = b.referer_app)
          AND b.source_host IS NULL AND (b.link IS NULL OR c.slug = b.link)
        UNION ALL
        SELECT slug, count(*) FROM edge_visitors GROUP BY slug
    ) AS parts
    GROUP BY slug
)
SELECT f.slug, f.hits::bigint, coalesce(v.visitors, 0)::bigint AS visitors, f.crawler_fetches::bigint,
    f.not_found::bigint, f.arrivals::bigint, round(f.arrivals::numeric / nullif(f.hits, 0), 4)::float8 AS arrival_rate
FROM funnel AS f LEFT JOIN visitors AS v ON v.slug = f.slug
WHERE f.hits + f.crawler_fetches + f.not_found + f.arrivals > 0
ORDER BY f.hits DESC, f.slug
