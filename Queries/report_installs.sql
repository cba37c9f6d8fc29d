-- report_installs: the install path per hosted link in a time window (docs/install.md): store taps by store, installs (claims of a click) by platform, deferred opens, and the median delay from click to install; the links section of alstats report.
--
-- Reads only the events of the install path, through the partial indexes of Migrations/0017 (events_install_path,
-- events_deferred_opens): the store taps (alstats_link_store), the installs (alstats_link_install) and the al_nav_in
-- with deferred "1" whose targetURL is a link's canonical URL on a public URL of link_public_url. These events are
-- never packed, so their fields are read from `extra`.
-- Parameters (unbound = no limit):
--   :since        window start, ms since the Unix epoch, inclusive
--   :until        window end, ms since the Unix epoch, exclusive
--   :ref          keep only events whose ref is this
--   :referer_app  keep only events whose refererAppName is this (taps and installs have none)
--   :source_host  keep only events whose sourceURLHost is this: these events have none, so with it there are no rows
--   :link         keep only the link with this slug
-- Columns: slug; store_taps_ios, store_taps_android (alstats_link_store with crawler other than "1", by platform);
--   installs_ios, installs_android (alstats_link_install, by platform); deferred_opens; median_delay_ms (the middle
--   delay_ms of the installs, the lower of the two middle ones for an even count; NULL without installs). One row per
--   slug with any of the counts above it, by slug.
WITH steps AS (
    SELECT name, json_extract(extra, '$.slug') AS slug, json_extract(extra, '$.platform') AS platform,
        json_extract(extra, '$.crawler') AS crawler, json_extract(extra, '$.delay_ms') AS delay_text
    FROM events
    WHERE name = 'alstats_link_store'
      AND ts_ms >= coalesce(:since, -9223372036854775807) AND ts_ms < coalesce(:until, 9223372036854775807)
      AND (:ref IS NULL OR ref = :ref) AND (:referer_app IS NULL OR referer_app_name = :referer_app)
      AND :source_host IS NULL
    UNION ALL
    SELECT name, json_extract(extra, '$.slug'), json_extract(extra, '$.platform'), NULL,
        json_extract(extra, '$.delay_ms')
    FROM events
    WHERE name = 'alstats_link_install'
      AND ts_ms >= coalesce(:since, -9223372036854775807) AND ts_ms < coalesce(:until, 9223372036854775807)
      AND (:ref IS NULL OR ref = :ref) AND (:referer_app IS NULL OR referer_app_name = :referer_app)
      AND :source_host IS NULL
    UNION ALL
    -- a deferred open's targetURL: <public URL>/l/<slug>, alone or followed by ? or # (scheme and host in any case)
    SELECT 'deferred', CASE WHEN cut > 0 THEN substr(tail, 1, cut - 1) ELSE tail END, NULL, NULL, NULL
    FROM (
        SELECT tail,
            CASE WHEN instr(tail, '?') = 0 THEN instr(tail, '#')
                 WHEN instr(tail, '#') = 0 THEN instr(tail, '?')
                 ELSE min(instr(tail, '?'), instr(tail, '#')) END AS cut
        FROM (
            SELECT substr(e.target_url, length(p.public_url) + 4) AS tail
            FROM events AS e CROSS JOIN link_public_url AS p -- the deferred opens first, by their index
            WHERE e.name = 'al_nav_in' AND e.extra GLOB '*"deferred":"1"*'
              AND e.ts_ms >= coalesce(:since, -9223372036854775807)
              AND e.ts_ms < coalesce(:until, 9223372036854775807)
              AND (:ref IS NULL OR e.ref = :ref) AND (:referer_app IS NULL OR e.referer_app_name = :referer_app)
              AND :source_host IS NULL
              AND lower(substr(e.target_url, 1, length(p.public_url))) = p.public_url
              AND substr(e.target_url, length(p.public_url) + 1, 3) = '/l/'
        )
    )
),
kept AS (
    SELECT * FROM steps
    WHERE length(slug) BETWEEN 1 AND 64 AND slug NOT GLOB '*[^A-Za-z0-9_-]*' AND (:link IS NULL OR slug = :link)
),
delays AS (
    SELECT slug, delay,
        row_number() OVER (PARTITION BY slug ORDER BY delay) AS position,
        count(*) OVER (PARTITION BY slug) AS total
    FROM (
        SELECT slug, CAST(delay_text AS INTEGER) AS delay
        FROM kept
        WHERE name = 'alstats_link_install' AND delay_text GLOB '[0-9]*' AND delay_text NOT GLOB '*[^0-9]*'
          AND length(delay_text) <= 15
    )
),
medians AS (
    SELECT slug, delay AS median_delay_ms FROM delays WHERE position = (total + 1) / 2
)
SELECT k.slug,
    sum(k.name = 'alstats_link_store' AND k.platform = 'ios' AND k.crawler IS NOT '1') AS store_taps_ios,
    sum(k.name = 'alstats_link_store' AND k.platform = 'android' AND k.crawler IS NOT '1') AS store_taps_android,
    sum(k.name = 'alstats_link_install' AND k.platform = 'ios') AS installs_ios,
    sum(k.name = 'alstats_link_install' AND k.platform = 'android') AS installs_android,
    sum(k.name = 'deferred') AS deferred_opens,
    m.median_delay_ms
FROM kept AS k LEFT JOIN medians AS m ON m.slug = k.slug
GROUP BY k.slug
HAVING store_taps_ios + store_taps_android + installs_ios + installs_android + deferred_opens > 0
ORDER BY k.slug;
