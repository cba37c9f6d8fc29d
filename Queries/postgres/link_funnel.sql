-- link_funnel: PostgreSQL's form of link_funnel.sql (the same rows): only the day's text differs, as
-- PostgreSQL has no strftime. Parameters and columns as there; each parameter arrives as text.
WITH counts AS (
    SELECT day_ms, slug,
        sum(CASE WHEN name = 'alstats_link_hit' AND status = 200 AND crawler = 0 THEN count ELSE 0 END) AS hits,
        sum(CASE WHEN name = 'alstats_link_hit' AND crawler = 1 THEN count ELSE 0 END) AS crawler_fetches,
        sum(CASE WHEN name = 'alstats_link_hit' AND crawler = 0 AND status IS DISTINCT FROM 200 THEN count ELSE 0 END)
            AS not_found,
        sum(CASE WHEN name = 'al_nav_in' AND lower(origin) IN (SELECT public_url FROM link_public_url)
            THEN count ELSE 0 END) AS arrivals
    FROM link_rollup_day
    WHERE (:since IS NULL OR day_ms >= CAST(:since AS BIGINT))
      AND (:until IS NULL OR day_ms < CAST(:until AS BIGINT))
      AND (:ref IS NULL OR ref = :ref) AND (:slug IS NULL OR slug = :slug)
    GROUP BY day_ms, slug
),
visitors AS (
    SELECT day_ms, slug, sum(visitors) AS visitors
    FROM link_visitor_count
    WHERE scope = CASE WHEN :ref IS NULL THEN 'all' ELSE 'ref' END AND (:ref IS NULL OR ref = :ref)
      AND (:since IS NULL OR day_ms >= CAST(:since AS BIGINT))
      AND (:until IS NULL OR day_ms < CAST(:until AS BIGINT))
      AND (:slug IS NULL OR slug = :slug)
    GROUP BY day_ms, slug
)
SELECT to_char(to_timestamp(c.day_ms / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, c.slug, c.hits,
    coalesce(v.visitors, 0) AS visitors, c.crawler_fetches, c.not_found, c.arrivals,
    round(1.0 * c.arrivals / nullif(c.hits, 0), 4) AS arrival_rate
FROM counts AS c LEFT JOIN visitors AS v ON v.day_ms = c.day_ms AND v.slug = c.slug
WHERE c.hits + c.crawler_fetches + c.not_found + c.arrivals > 0
ORDER BY c.day_ms, c.hits DESC, c.slug;
