-- report_links: the hosted links funnel per slug in a time window (hits, visitors, crawler fetches, pages not found, arrivals in the app); the links section of alstats report.
--
-- Its cost grows with the number of groups, not of events: it reads the link rollups (Migrations/0009) for
-- the whole UTC days and 15-minute buckets inside the window, and the raw events (view link_event) only of
-- the partial buckets at the window's edges; visitors come from link_visitor_count for whole UTC days and
-- from the raw hits of the partial UTC days at the edges (at most two days of hits).
-- Parameters (unbound = no limit):
--   :since        window start, ms since the Unix epoch, inclusive
--   :until        window end, ms since the Unix epoch, exclusive
--   :ref          keep only hits and arrivals whose ref is this
--   :referer_app  keep only events whose refererAppName is this
--   :source_host  keep only events whose sourceURLHost is this: hits and arrivals have none, so with it there
--                 are no rows (the filters combine with AND)
--   :link         keep only the link with this slug
-- Columns: slug; hits (alstats_link_hit with status 200 and crawler 0); visitors (distinct visitor values of
--   those hits per UTC day, summed over the days); crawler_fetches (hits with crawler 1); not_found (hits
--   with crawler 0 and a status other than 200: unknown slugs); arrivals (al_nav_in whose targetURL is the
--   link's canonical URL on a public URL of link_public_url); arrival_rate (arrivals / hits to 4 decimals,
--   NULL without hits). One row per slug with any of them, by hits descending, then slug.
WITH edges AS (
    SELECT
        coalesce(:since, -9223372036854775807) AS s,
        coalesce(:until, 9223372036854775807) AS u,
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
    SELECT s, u, b1, b2, d1, d2,
        CASE WHEN max(d1, b1) < min(d2, b2) THEN max(d1, b1) ELSE b2 END AS dl,
        CASE WHEN max(d1, b1) < min(d2, b2) THEN min(d2, b2) ELSE b2 END AS dh
    FROM edges
),
counts AS (
    SELECT r.name, r.slug, r.origin, r.status, r.crawler, r.count
    FROM link_rollup_day AS r, bounds AS b
    WHERE r.day_ms >= b.dl AND r.day_ms < b.dh
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
      AND :source_host IS NULL AND (:link IS NULL OR r.slug = :link)
    UNION ALL
    SELECT r.name, r.slug, r.origin, r.status, r.crawler, r.count
    FROM link_rollup AS r, bounds AS b
    WHERE r.bucket_ms >= b.b1 AND r.bucket_ms < b.dl
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
      AND :source_host IS NULL AND (:link IS NULL OR r.slug = :link)
    UNION ALL
    SELECT r.name, r.slug, r.origin, r.status, r.crawler, r.count
    FROM link_rollup AS r, bounds AS b
    WHERE r.bucket_ms >= max(b.dh, b.b1) AND r.bucket_ms < b.b2
      AND (:ref IS NULL OR r.ref = :ref) AND (:referer_app IS NULL OR r.referer_app_name = :referer_app)
      AND :source_host IS NULL AND (:link IS NULL OR r.slug = :link)
    UNION ALL
    -- the raw events of the partial buckets: bounds written out in the parameters, so that SQLite reads
    -- the view link_event by a range of events_by_time
    SELECT e.name, e.slug, e.origin, e.status, e.crawler, 1
    FROM link_event AS e
    WHERE e.ts_ms >= coalesce(:since, -9223372036854775807)
      AND e.ts_ms < min(CASE WHEN :since IS NULL THEN -9223372036854775807
                     ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END,
                    coalesce(:until, 9223372036854775807))
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
      AND :source_host IS NULL AND (:link IS NULL OR e.slug = :link)
    UNION ALL
    SELECT e.name, e.slug, e.origin, e.status, e.crawler, 1
    FROM link_event AS e
    WHERE e.ts_ms >= max(CASE WHEN :until IS NULL THEN 9223372036854775807 ELSE :until - ((:until % 900000) + 900000) % 900000 END,
                     CASE WHEN :since IS NULL THEN -9223372036854775807
                     ELSE (:since + 899999) - (((:since + 899999) % 900000) + 900000) % 900000 END,
                     coalesce(:since, -9223372036854775807))
      AND e.ts_ms < coalesce(:until, 9223372036854775807)
      AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
      AND :source_host IS NULL AND (:link IS NULL OR e.slug = :link)
),
funnel AS (
    SELECT slug,
        sum(CASE WHEN name = 'alstats_link_hit' AND status = 200 AND crawler = 0 THEN count ELSE 0 END) AS hits,
        sum(CASE WHEN name = 'alstats_link_hit' AND crawler = 1 THEN count ELSE 0 END) AS crawler_fetches,
        sum(CASE WHEN name = 'alstats_link_hit' AND crawler = 0 AND status IS NOT 200 THEN count ELSE 0 END)
            AS not_found,
        sum(CASE WHEN name = 'al_nav_in' AND lower(origin) IN (SELECT public_url FROM link_public_url)
            THEN count ELSE 0 END) AS arrivals
    FROM counts
    GROUP BY slug
),
visitors AS (
    SELECT slug, sum(visitors) AS visitors
    FROM (
        -- whole UTC days: the counts of the scope of the filters
        SELECT c.slug, c.visitors
        FROM link_visitor_count AS c, bounds AS b
        WHERE c.day_ms >= b.d1 AND c.day_ms < b.d2
          AND c.scope = CASE WHEN :ref IS NULL AND :referer_app IS NULL THEN 'all' WHEN :referer_app IS NULL THEN 'ref'
                             WHEN :ref IS NULL THEN 'referer_app' ELSE 'both' END
          AND (:ref IS NULL OR c.ref = :ref) AND (:referer_app IS NULL OR c.referer_app_name = :referer_app)
          AND :source_host IS NULL AND (:link IS NULL OR c.slug = :link)
        UNION ALL
        -- the partial UTC days at the window's edges: distinct visitors of their raw hits (one day each)
        SELECT slug, count(*)
        FROM (
            SELECT DISTINCT e.ts_ms - ((e.ts_ms % 86400000) + 86400000) % 86400000 AS day_ms, e.slug, e.visitor
            FROM link_event AS e
            WHERE e.ts_ms >= coalesce(:since, -9223372036854775807)
              AND e.ts_ms < min(CASE WHEN :since IS NULL THEN -9223372036854775807
                     ELSE (:since + 86399999) - (((:since + 86399999) % 86400000) + 86400000) % 86400000 END,
                            coalesce(:until, 9223372036854775807))
              AND e.name = 'alstats_link_hit' AND e.status = 200 AND e.crawler = 0 AND e.visitor IS NOT NULL
              AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
      AND :source_host IS NULL AND (:link IS NULL OR e.slug = :link)
        )
        GROUP BY slug
        UNION ALL
        SELECT slug, count(*)
        FROM (
            SELECT DISTINCT e.ts_ms - ((e.ts_ms % 86400000) + 86400000) % 86400000 AS day_ms, e.slug, e.visitor
            FROM link_event AS e
            WHERE e.ts_ms >= max(CASE WHEN :until IS NULL THEN 9223372036854775807
                     ELSE :until - ((:until % 86400000) + 86400000) % 86400000 END,
                             CASE WHEN :since IS NULL THEN -9223372036854775807
                     ELSE (:since + 86399999) - (((:since + 86399999) % 86400000) + 86400000) % 86400000 END,
                             coalesce(:since, -9223372036854775807))
              AND e.ts_ms < coalesce(:until, 9223372036854775807)
              AND e.name = 'alstats_link_hit' AND e.status = 200 AND e.crawler = 0 AND e.visitor IS NOT NULL
              AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
      AND :source_host IS NULL AND (:link IS NULL OR e.slug = :link)
        )
        GROUP BY slug
    )
    GROUP BY slug
)
SELECT f.slug, f.hits, coalesce(v.visitors, 0) AS visitors, f.crawler_fetches, f.not_found, f.arrivals,
    round(1.0 * f.arrivals / nullif(f.hits, 0), 4) AS arrival_rate
FROM funnel AS f LEFT JOIN visitors AS v ON v.slug = f.slug
WHERE f.hits + f.crawler_fetches + f.not_found + f.arrivals > 0
ORDER BY f.hits DESC, f.slug;
