-- report_installs: the install path per hosted link in a time window; PostgreSQL's form of report_installs.sql
-- (same rows): the store taps, installs and deferred opens through the partial indexes of
-- Migrations/postgres/0010, their fields read from extra, and those of pruned months from pruned_install_events
-- (Migrations/postgres/0013: a prune keeps them there), so that the funnel stays exact after a prune.
-- Parameters (NULL = no limit): :since (ms, inclusive), :until (ms, exclusive), :ref, :referer_app, :source_host
-- (these events have none: no rows), :link (this slug only); each arrives as text (alstats binds every parameter
-- as text on PostgreSQL) and is cast here.
-- Columns: slug, store_taps_ios, store_taps_android, installs_ios, installs_android, deferred_opens,
-- median_delay_ms (the lower middle delay_ms, NULL without installs). By slug.
WITH p AS (
    SELECT coalesce(:since::bigint, -9223372036854775807) AS since,
        coalesce(:until::bigint, 9223372036854775807) AS until, :ref::text COLLATE "C" AS ref,
        :referer_app::text COLLATE "C" AS referer_app, :source_host::text COLLATE "C" AS source_host,
        :link::text COLLATE "C" AS link
),
steps AS (
    SELECT e.name, e.extra::json ->> 'slug' AS slug, e.extra::json ->> 'platform' AS platform,
        e.extra::json ->> 'crawler' AS crawler, e.extra::json ->> 'delay_ms' AS delay_text
    FROM (
        SELECT name, ts_ms, ref, referer_app_name, target_url, extra FROM events
        UNION ALL
        SELECT name, ts_ms, ref, referer_app_name, target_url, extra FROM pruned_install_events
    ) AS e, p
    WHERE e.name IN ('alstats_link_store', 'alstats_link_install') AND e.ts_ms >= p.since AND e.ts_ms < p.until
      AND (p.ref IS NULL OR e.ref = p.ref) AND (p.referer_app IS NULL OR e.referer_app_name = p.referer_app)
      AND p.source_host IS NULL
    UNION ALL
    -- a deferred open's targetURL: <public URL>/l/<slug>, alone or followed by ? or # (scheme and host in any case)
    SELECT 'deferred', split_part(split_part(substr(e.target_url, length(u.public_url) + 4), '?', 1), '#', 1),
        NULL, NULL, NULL
    FROM (
        SELECT name, ts_ms, ref, referer_app_name, target_url, extra FROM events
        UNION ALL
        SELECT name, ts_ms, ref, referer_app_name, target_url, extra FROM pruned_install_events
    ) AS e, p, link_public_url AS u
    WHERE e.name = 'al_nav_in' AND e.extra LIKE '%"deferred":"1"%' AND e.ts_ms >= p.since AND e.ts_ms < p.until
      AND (p.ref IS NULL OR e.ref = p.ref) AND (p.referer_app IS NULL OR e.referer_app_name = p.referer_app)
      AND p.source_host IS NULL
      AND lower(substr(e.target_url, 1, length(u.public_url))) = u.public_url
      AND substr(e.target_url, length(u.public_url) + 1, 3) = '/l/'
),
kept AS (
    SELECT steps.* FROM steps, p
    WHERE length(slug) BETWEEN 1 AND 64 AND slug !~ '[^A-Za-z0-9_-]' AND (p.link IS NULL OR slug = p.link)
),
delays AS (
    SELECT slug, delay,
        row_number() OVER (PARTITION BY slug ORDER BY delay) AS position,
        count(*) OVER (PARTITION BY slug) AS total
    FROM (
        SELECT slug, delay_text::bigint AS delay
        FROM kept
        WHERE name = 'alstats_link_install' AND delay_text ~ '^[0-9]{1,15}$'
    ) AS numbered
),
medians AS (
    SELECT slug, delay AS median_delay_ms FROM delays WHERE position = (total + 1) / 2
)
SELECT k.slug,
    count(*) FILTER (WHERE k.name = 'alstats_link_store' AND k.platform = 'ios' AND k.crawler IS DISTINCT FROM '1')
        AS store_taps_ios,
    count(*) FILTER (WHERE k.name = 'alstats_link_store' AND k.platform = 'android'
        AND k.crawler IS DISTINCT FROM '1') AS store_taps_android,
    count(*) FILTER (WHERE k.name = 'alstats_link_install' AND k.platform = 'ios') AS installs_ios,
    count(*) FILTER (WHERE k.name = 'alstats_link_install' AND k.platform = 'android') AS installs_android,
    count(*) FILTER (WHERE k.name = 'deferred') AS deferred_opens,
    min(m.median_delay_ms) AS median_delay_ms
FROM kept AS k LEFT JOIN medians AS m ON m.slug = k.slug
GROUP BY k.slug
HAVING count(*) FILTER (WHERE (k.name = 'alstats_link_store' AND k.platform IN ('ios', 'android')
        AND k.crawler IS DISTINCT FROM '1') OR (k.name = 'alstats_link_install' AND k.platform IN ('ios', 'android'))
        OR k.name = 'deferred') > 0
ORDER BY k.slug
