-- 0009_create_link_rollups: the hosted links funnel (issue 14, links.md "In the report") without scanning
-- events: hits of /l/{slug} (alstats_link_hit) and App Link arrivals at a link's canonical URL (al_nav_in).
--
-- link_rollup: per 15-minute UTC bucket, event name, slug, origin, ref, referer_app_name, status and crawler,
--   the number of events. For alstats_link_hit: slug (field slug), status (field status as an integer, NULL
--   when it is not one), crawler (1 when field crawler is "1", else 0), origin NULL. For al_nav_in: only
--   events whose targetURL is `<origin>/l/<slug>`, alone or followed by `?` or `#`, where origin is
--   `scheme://authority` (no path: links are served at /l/ of the site's root, as the verified-link files
--   say) and slug is 1 to 64 of A-Z a-z 0-9 _ -; origin as written, status and crawler NULL.
-- link_rollup_day: the same groups per UTC day (day_ms: the day's start, a multiple of 86400000).
-- link_visitor_day: one row per UTC day, slug, ref, referer_app_name and `visitor` value of the people's
--   page views (alstats_link_hit with status 200 and crawler 0). The value is the daily-keyed hash of
--   links.md; no address is ever stored.
-- link_visitor_count: distinct visitors per UTC day and slug, in four scopes (one per combination of the
--   report's filters): 'all' (ref and referer_app_name NULL), 'ref' (per ref), 'referer_app' (per
--   referer_app_name), 'both' (per ref and referer_app_name); counted as link_visitor_day gains rows.
-- link_public_url: the public URLs (origins) under which the links are served, lowercased; the report
--   counts as arrivals only al_nav_in at one of them. Recorded by `alstats links put --public-url`,
--   `alstats demo` and `alstats serve`.
-- The writers keep the first four in the same transaction as the events, from the rows really inserted
-- (LinkRollupWriter); SQLiteEventStore.rebuildRollups() recomputes them from the raw events
-- (Statements/rebuild_link_rollups.sql). Events stored before this migration are rolled up here.

CREATE TABLE link_rollup (
    bucket_ms        INTEGER NOT NULL,
    name             TEXT    NOT NULL,   -- alstats_link_hit or al_nav_in
    slug             TEXT    NOT NULL,
    origin           TEXT,               -- al_nav_in: scheme://authority of targetURL
    ref              TEXT,
    referer_app_name TEXT,
    status           INTEGER,            -- alstats_link_hit: 200, 404, ...
    crawler          INTEGER,            -- alstats_link_hit: 1 or 0
    count            INTEGER NOT NULL
);

-- One row per group (NULL mapped to x'' so that NULLs group together); the upsert target and the range scan.
CREATE UNIQUE INDEX link_rollup_group ON link_rollup (
    bucket_ms, name, slug, ifnull(origin, x''), ifnull(ref, x''), ifnull(referer_app_name, x''),
    ifnull(status, x''), ifnull(crawler, x'')
);

CREATE TABLE link_rollup_day (
    day_ms           INTEGER NOT NULL,
    name             TEXT    NOT NULL,
    slug             TEXT    NOT NULL,
    origin           TEXT,
    ref              TEXT,
    referer_app_name TEXT,
    status           INTEGER,
    crawler          INTEGER,
    count            INTEGER NOT NULL
);

CREATE UNIQUE INDEX link_rollup_day_group ON link_rollup_day (
    day_ms, name, slug, ifnull(origin, x''), ifnull(ref, x''), ifnull(referer_app_name, x''),
    ifnull(status, x''), ifnull(crawler, x'')
);

CREATE TABLE link_visitor_day (
    day_ms           INTEGER NOT NULL,
    slug             TEXT    NOT NULL,
    ref              TEXT,
    referer_app_name TEXT,
    visitor          TEXT    NOT NULL
);

-- One row per group; its prefix (day_ms, slug, visitor) finds a visitor's rows of the day.
CREATE UNIQUE INDEX link_visitor_day_group ON link_visitor_day (
    day_ms, slug, visitor, ifnull(ref, x''), ifnull(referer_app_name, x'')
);

CREATE TABLE link_visitor_count (
    day_ms           INTEGER NOT NULL,
    slug             TEXT    NOT NULL,
    scope            TEXT    NOT NULL CHECK (scope IN ('all', 'ref', 'referer_app', 'both')),
    ref              TEXT,
    referer_app_name TEXT,
    visitors         INTEGER NOT NULL
);

CREATE UNIQUE INDEX link_visitor_count_group ON link_visitor_count (
    day_ms, slug, scope, ifnull(ref, x''), ifnull(referer_app_name, x'')
);

CREATE TABLE link_public_url (
    public_url  TEXT    NOT NULL PRIMARY KEY,   -- scheme://authority, lowercased, no trailing slash
    recorded_ms INTEGER NOT NULL                -- when it was first recorded, ms since the Unix epoch
) WITHOUT ROWID;

-- Every stored event the funnel reads, one row each, with the fields it needs: the hits (with a `slug`
-- field) and the al_nav_in whose targetURL is a canonical link URL (see above). The one SQL definition of
-- what the writers roll up (LinkRollupKey in Swift), read by the rebuild, the report's window edges and
-- Queries/link_funnel.sql. Columns: id, ts_ms, name, slug, origin, ref, referer_app_name, status, crawler,
-- visitor (NULL where they do not apply).
CREATE VIEW link_event AS
SELECT id, ts_ms, name, slug, NULL AS origin, ref, referer_app_name,
    CASE WHEN status_text GLOB '[0-9]*' AND status_text NOT GLOB '*[^0-9]*' AND length(status_text) <= 9
        THEN CAST(status_text AS INTEGER) END AS status,
    CASE WHEN crawler_text = '1' THEN 1 ELSE 0 END AS crawler,
    visitor
FROM (
    SELECT id, ts_ms, name, ref, referer_app_name, json_extract(extra, '$.slug') AS slug,
        json_extract(extra, '$.status') AS status_text, json_extract(extra, '$.crawler') AS crawler_text,
        json_extract(extra, '$.visitor') AS visitor
    FROM events
    WHERE name = 'alstats_link_hit'
)
WHERE slug IS NOT NULL
UNION ALL
SELECT id, ts_ms, name, slug, origin, ref, referer_app_name, NULL, NULL, NULL
FROM (
    SELECT id, ts_ms, name, ref, referer_app_name, scheme || '://' || authority AS origin,
        CASE WHEN cut > 0 THEN substr(tail, 1, cut - 1) ELSE tail END AS slug
    FROM (
        SELECT id, ts_ms, name, ref, referer_app_name, scheme, authority, tail,
            CASE WHEN instr(tail, '?') = 0 THEN instr(tail, '#')
                 WHEN instr(tail, '#') = 0 THEN instr(tail, '?')
                 ELSE min(instr(tail, '?'), instr(tail, '#')) END AS cut
        FROM (
            SELECT id, ts_ms, name, ref, referer_app_name, scheme,
                substr(rest, 1, instr(rest, '/') - 1) AS authority,
                substr(rest, instr(rest, '/'), 3) AS lead, substr(rest, instr(rest, '/') + 3) AS tail
            FROM (
                SELECT id, ts_ms, name, ref, referer_app_name,
                    substr(target_url, 1, instr(target_url, '://') - 1) AS scheme,
                    substr(target_url, instr(target_url, '://') + 3) AS rest
                FROM events
                WHERE name = 'al_nav_in' AND instr(target_url, '://') > 1
            )
            WHERE instr(rest, '/') > 1
        )
        WHERE lead = '/l/' AND authority NOT GLOB '*[?#]*' AND scheme NOT GLOB '*[^A-Za-z0-9+.-]*'
    )
)
WHERE length(slug) BETWEEN 1 AND 64 AND slug NOT GLOB '*[^A-Za-z0-9_-]*';

-- Roll up the events stored before this migration (the same statements as Statements/rebuild_link_rollups.sql).
INSERT INTO link_rollup (bucket_ms, name, slug, origin, ref, referer_app_name, status, crawler, count)
SELECT ts_ms - ((ts_ms % 900000) + 900000) % 900000, name, slug, origin, ref, referer_app_name, status, crawler,
    count(*)
FROM link_event
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO link_rollup_day (day_ms, name, slug, origin, ref, referer_app_name, status, crawler, count)
SELECT bucket_ms - ((bucket_ms % 86400000) + 86400000) % 86400000, name, slug, origin, ref, referer_app_name,
    status, crawler, sum(count)
FROM link_rollup
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO link_visitor_day (day_ms, slug, ref, referer_app_name, visitor)
SELECT DISTINCT ts_ms - ((ts_ms % 86400000) + 86400000) % 86400000, slug, ref, referer_app_name, visitor
FROM link_event
WHERE name = 'alstats_link_hit' AND status = 200 AND crawler = 0 AND visitor IS NOT NULL;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'all', NULL, NULL, count(DISTINCT visitor) FROM link_visitor_day GROUP BY day_ms, slug;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'ref', ref, NULL, count(DISTINCT visitor) FROM link_visitor_day GROUP BY day_ms, slug, ref;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'referer_app', NULL, referer_app_name, count(DISTINCT visitor)
FROM link_visitor_day
GROUP BY day_ms, slug, referer_app_name;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'both', ref, referer_app_name, count(*) FROM link_visitor_day GROUP BY day_ms, slug, ref, referer_app_name;
